// How the public Foundry BCDice modules post BCDice's text in chat (learnt from their
// public source, not copied): fvtt-bcdice (jsinme/fvtt-bcdice, scripts/dsn-utilities.js)
// and "BCDice for Foundry VTT" (jeannjeann/fvtt-bcdice-addon, same file). Both put each
// result line in its own <p> and write every "," as ",\u200B"; fvtt-bcdice speaks as the
// game system's name, the addon as the controlled token's (or the user's character's) name.

/** How fvtt-bcdice posts BCDice's text (each line a <p>, speaker: the system). */
export function fvttBcdice(text) {
  const ps = text.split("\n").map((l) => `<p>${l}</p>`).join("").replace(/,/g, ",\u200B");
  return `<div>\n                        ${ps}\n                      </div>`;
}

/** How "BCDice for Foundry VTT" (fvtt-bcdice-addon) posts it: an icon, the command, <p>s. */
export function bcdiceAddon(command, text) {
  const ps = text.split("\n").map((l) => `<p class="success-normal" style="color: #555555">${l}</p>`).join("").replace(/,/g, ",\u200B");
  return `<div><i class="fas fa-dice"></i> \n                        ${command} ${ps}\n                      </div>`;
}

