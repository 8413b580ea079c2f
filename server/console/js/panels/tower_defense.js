// Tower defense (rules.md TD-*): the fortress map — forts with durability, passages,
// groups with counts walking inward, special individuals, PCs, traps — round and phase,
// and the GM-only future waves. Command: next phase (`td.next_phase`, key `n`). The map is
// the shared board (./tower_defense_board.js): PCs are dragged from fort to fort.

import { h } from "../dom.js";
import { registerPanel } from "../registry.js";
import { asGMWords } from "../words.js";
import { t, pick, lang } from "../i18n.js";
import { nextPhase as phaseAfter, phaseName as tablePhaseName, phases } from "../phases.js";
import { tdBoard } from "./tower_defense_board.js";
import { nameIn, pieceLabels } from "../board.js";

const K = "tower_defense";
const S = 32; // map units per grid square

const STRINGS = {
  ja: {
    "td.round_of": "ラウンド {n}/{of}",
    "td.do.next_phase": "次のフェイズへ進める",
    "td.do.declare": "結果を宣言: {outcome}",
    "td.do.group.add": "群れ「{name}」（{count}体）を{direction}に出す",
    "td.do.individual.remove": "特異個体「{name}」を取り除く",
    "td.do.pc.place": "{pc}を{fort}に配置",
    "td.do.trap.set": "{pc}が{passage}に{trap}トラップを仕掛ける",
    "td.do.move": "{pc}が{fort}へ移動",
    "td.do.attack": "{pc}が{weapon}で「{group}」を攻撃（{n}回）",
    "td.do.reload": "{pc}が{weapon}をリロード",
    "td.do.melee": "{pc}が{weapon}で「{group}」に近接攻撃",
    "td.do.special": "{pc}が「{group}」に魔眼を使う",
    "td.title": "タワーディフェンス",
    "td.round": "第{n}ラウンド",
    "td.next": "次へ: {phase}",
    "td.next.short": "次へ",
    "td.outcome": "結果", "td.outcome.none": "決着前", "td.outcome.victory": "PC側の勝利",
    "td.outcome.defeat": "PC側の敗北",
    "td.victory": "勝利条件",
    "td.map": "砦マップ",
    "td.forts": "砦", "td.fort": "砦", "td.tier": "段", "td.durability": "耐久力",
    "td.final": "最終砦", "td.broken": "陥落",
    "td.groups": "敵グループ", "td.group": "グループ", "td.count": "個体数", "td.where": "位置",
    "td.individuals": "特異個体",
    "td.at_direction": "{d}（出現地点）", "td.waiting": "通路上で待機", "td.on_passage": "通路上",
    "td.snared": "足止め", "td.marked": "魔眼",
    "td.pcs": "PC", "td.player": "プレイヤー", "td.weapons": "武器", "td.npc": "NPC（GM）",
    "td.place": "初期配置", "td.unplaced": "未配置",
    "td.loaded": "装填", "td.special": "特殊弾", "td.used": "使用",
    "td.traps": "罠", "td.trap.explosive": "爆破", "td.trap.snare": "足止め", "td.spent": "使用済み",
    "td.passage": "通路", "td.none": "なし",
    "td.waves": "今後のウェーブ", "td.waves.round": "第{n}ラウンド",
    "td.waves.next": "次", "td.waves.past": "出現済み", "td.waves.mode": "方式", "td.waves.mode.fixed": "固定", "td.waves.mode.alternate": "交互", "td.waves.mode.random": "ランダム（出現表）",
    "td.waves.odd": "奇数ラウンド", "td.waves.even": "偶数ラウンド", "td.waves.table": "ランダム表 {n}",
    "td.san": "SAN",
  },
  en: {
    "td.round_of": "Round {n}/{of}",
    "td.do.next_phase": "moved on to the next phase",
    "td.do.declare": "declared the outcome: {outcome}",
    "td.do.group.add": "sent group “{name}” ({count}) in at {direction}",
    "td.do.individual.remove": "removed the special “{name}”",
    "td.do.pc.place": "placed {pc} at {fort}",
    "td.do.trap.set": "{pc} set a {trap} trap on {passage}",
    "td.do.move": "{pc} moved to {fort}",
    "td.do.attack": "{pc} attacked “{group}” with {weapon} ({n}×)",
    "td.do.reload": "{pc} reloaded {weapon}",
    "td.do.melee": "{pc} attacked “{group}” in melee with {weapon}",
    "td.do.special": "{pc} used the evil eye on “{group}”",
    "td.title": "Tower defense",
    "td.round": "Round {n}",
    "td.next": "Next phase: {phase}",
    "td.next.short": "Next",
    "td.outcome": "Outcome", "td.outcome.none": "undecided", "td.outcome.victory": "victory",
    "td.outcome.defeat": "defeat",
    "td.victory": "Victory",
    "td.map": "Fortress map",
    "td.forts": "Forts", "td.fort": "Fort", "td.tier": "tier", "td.durability": "durability",
    "td.final": "final", "td.broken": "fallen",
    "td.groups": "Enemy groups", "td.group": "Group", "td.count": "count", "td.where": "where",
    "td.individuals": "Special individuals",
    "td.at_direction": "{d} (entry)", "td.waiting": "waiting on a passage", "td.on_passage": "on a passage",
    "td.snared": "snared", "td.marked": "evil eye",
    "td.pcs": "PCs", "td.player": "player", "td.weapons": "weapons", "td.npc": "NPC (GM)",
    "td.place": "starting fort", "td.unplaced": "not placed",
    "td.loaded": "loaded", "td.special": "special", "td.used": "used",
    "td.traps": "Traps", "td.trap.explosive": "explosive", "td.trap.snare": "snare", "td.spent": "spent",
    "td.passage": "passage", "td.none": "none",
    "td.waves": "Future waves", "td.waves.round": "Round {n}",
    "td.waves.next": "next", "td.waves.past": "appeared", "td.waves.mode": "mode", "td.waves.mode.fixed": "fixed", "td.waves.mode.alternate": "alternating", "td.waves.mode.random": "random (wave table)",
    "td.waves.odd": "odd rounds", "td.waves.even": "even rounds", "td.waves.table": "random row {n}",
    "td.san": "SAN",
  },
};

const R = (path, rule, ja, en) => ({ path: [K, ...path], rule, ja, en });
const RULES = [
  R(["forts", "*", "durability"], "TD-EATK-1",
    "敵攻撃フェイズに、その砦にいるグループの個体数だけ耐久力が減る（0未満にはならない）",
    "durability falls by group count in the enemy attack phase (never below 0)"),
  R(["forts", "*", "durability"], "TD-EATK-2",
    "耐久力が0以下になった砦のグループはそれ以上攻撃しない",
    "once a fort is at 0, the groups there attack no more"),
  R(["forts", "*", "max_durability"], "TD-MAP-1", "シナリオで決まる（内側の段ほど高い）",
    "fixed by the scenario (inner tiers are sturdier)"),
  R(["groups", "*", "count"], "TD-ATK-2",
    "PCの攻撃で減る: レギュラー1・イクストリーム2・クリティカル3 × 武器のダメージ",
    "PC attacks remove regular 1 / extreme 2 / critical 3 × the weapon's damage"),
  R(["groups", "*", "count"], "TD-REIN-1", "個体数が0以下になったグループはすぐ除外",
    "a group at count ≤ 0 is removed at once"),
  ...["fort", "at", "cell", "waiting", "route"].map((f) => R(["groups", "*", f], "TD-ADV-1",
    "敵進軍フェイズに内側へ進み、耐久力1以上の砦で止まる",
    "moves inward in the advance phase and stops at the first fort with durability ≥ 1")),
  R(["groups", "*", "snared"], "TD-OPT-1", "足止めトラップ: 次の敵攻撃フェイズに攻撃できない",
    "snare: cannot attack in the next enemy attack phase"),
  ...["fort", "at", "cell", "waiting", "fort_damage", "penalty_dice", "doubles_attack", "hp"].map((f) =>
    R(["individuals", "*", f], "TD-OPT-2", "特異個体の場の効果（司祭×2・凍てつく者ペナルティ・ノフケー4ダメージ）",
      "special individuals' field effects (priest ×2, frozen penalty die, nofke 4 damage)")),
  R(["pcs", "*", "fort"], "TD-ATK-1", "PC攻撃フェイズに通路1本ぶん隣の砦へ移動できる",
    "moves one passage to an adjacent fort in the PC attack phase"),
  R(["pcs", "*", "fort"], "TD-PRE-1", "1ラウンド目の前に初期位置の砦を選ぶ",
    "each PC picks a starting fort before round 1"),
  R(["pcs", "*", "weapons", "*", "loaded"], "TD-ATK-3", "射撃で減り、空になったらフェイズを使ってリロード",
    "shots use rounds; an empty weapon needs a phase to reload"),
  R(["pcs", "*", "weapons", "*", "used"], "TD-ATK-3", "1ラウンドの攻撃回数は武器ごとの上限まで",
    "attacks per round are capped per weapon"),
  R(["pcs", "*", "weapons", "*", "special_left"], "TD-DATA", "特殊弾は回数限定",
    "special rounds are limited"),
  R(["pcs", "*", "acted"], "TD-ATK-3", "同じフェイズに移動と射撃はできない",
    "no moving and shooting in the same phase"),
  R(["traps", "*", "spent"], "TD-OPT-1", "通路を進むグループに1回の敵進軍フェイズだけ作動し、使用済みになる",
    "fires for the groups on its passage in one advance phase, then is spent"),
  R(["round"], "TD-RND", "敵増援フェイズで1増える", "increases at the reinforcement phase"),
  R(["phase"], "TD-RND", "敵増援 → 敵進軍 → PC攻撃 → 敵攻撃 の順", "reinforcement → advance → PC attack → enemy attack"),
  R(["outcome"], "TD-SET-1", "最終砦の耐久力が0で敗北、勝利条件はシナリオで決まる",
    "defeat when a final fort falls; victory as the scenario says"),
  R(["marks", "*"], "TD-DATA", "魔眼: このラウンドそのグループへのダメージが倍",
    "evil eye: the marked group takes double damage this round"),
];

/** A phase's name, from the table the server sent (TD-RND). */
const phaseName = (p) => tablePhaseName(K, p);
/** On a player's page: is this PC theirs (highlighted on the map and in the tables)? */
const isMine = (ctx, pc) => !!ctx.player && pc.player === ctx.player;

function nameOf(td, id) {
  return td.forts[id]?.name ?? td.directions[id]?.name ?? id;
}

function whereText(td, w) {
  if (w.waiting) return t("td.waiting");
  if (w.fort) return nameOf(td, w.fort);
  if (!w.at) return t("td.at_direction", { d: nameOf(td, w.direction) });
  return t("td.on_passage");
}

// -- map -------------------------------------------------------------------------------

function bounds(td, grid) {
  let w = grid?.width || 1;
  let hgt = grid?.height || 1;
  const see = (c) => {
    if (!c) return;
    w = Math.max(w, c.x + 1);
    hgt = Math.max(hgt, c.y + 1);
  };
  for (const f of Object.values(td.forts)) see(f.cell);
  for (const d of Object.values(td.directions)) see(d.cell);
  for (const p of Object.values(td.passages)) p.cells.forEach(see);
  return { w, h: hgt };
}

const cx = (c) => (c.x + 0.5) * S;
const cy = (c) => (c.y + 0.5) * S;

function nodeCell(td, id) {
  return td.forts[id]?.cell ?? td.directions[id]?.cell;
}

function mapSvg(ctx, td) {
  const { w, h: hh } = bounds(td, ctx.state.table?.grid);
  const pad = S * 0.8;
  const svg = h("svg.td-map", { viewBox: `${-pad} ${-pad} ${w * S + 2 * pad} ${hh * S + 2 * pad}`,
                                "aria-label": t("td.map"), preserveAspectRatio: "xMidYMid meet" });
  // The board's lit squares go right after the first child: above the forts, below the pieces.
  const under = h("g.td-under");
  const layers = {
    cells: h("g.td-cells"), passages: h("g.td-passages"), traps: h("g.td-traps"), dirs: h("g.td-directions"),
    forts: h("g.td-forts"), walkers: h("g.td-walkers"), pcs: h("g.td-pc-pieces"),
  };
  svg.appendChild(under);
  for (const [k, l] of Object.entries(layers)) (["walkers", "pcs"].includes(k) ? svg : under).appendChild(l);
  for (let y = 0; y < hh; y++) {
    for (let x = 0; x < w; x++) {
      layers.cells.appendChild(h("rect.td-cell", { x: x * S, y: y * S, width: S, height: S, dataset: { boardCell: "", x, y } }));
    }
  }

  for (const p of Object.values(td.passages)) {
    const pts = [nodeCell(td, p.outer), ...p.cells, nodeCell(td, p.inner)].filter(Boolean);
    layers.passages.appendChild(h("polyline", {
      class: p.lateral ? "td-passage lateral" : "td-passage",
      points: pts.map((c) => `${cx(c)},${cy(c)}`).join(" "),
      dataset: { id: p.id },
    }, h("title", `${t("td.passage")} ${p.id}`)));
  }
  for (const tr of Object.values(td.traps)) {
    if (!tr.cell) continue;
    const x = cx(tr.cell);
    const y = cy(tr.cell);
    layers.traps.appendChild(h("g", { class: `td-trap ${tr.kind}${tr.spent ? " spent" : ""}`,
                                      dataset: { id: tr.id } },
      h("polygon", { points: `${x},${y - 11} ${x + 11},${y + 9} ${x - 11},${y + 9}` }),
      h("text", { x, y: y + 6, "text-anchor": "middle" }, lang() === "ja" ? (tr.kind === "snare" ? "足" : "爆") : tr.kind[0].toUpperCase()),
      h("title", `${t(`td.trap.${tr.kind}`)} — ${tr.passage}${tr.spent ? ` (${t("td.spent")})` : ""}`)));
  }
  for (const d of Object.values(td.directions)) {
    layers.dirs.appendChild(h("g.td-direction", { dataset: { id: d.id } },
      h("circle", { cx: cx(d.cell), cy: cy(d.cell), r: 7 }),
      h("text", { x: cx(d.cell), y: cy(d.cell) - 10, "text-anchor": "middle" }, d.name)));
  }
  const pcsAt = {};
  for (const pc of Object.values(td.pcs)) if (pc.fort) (pcsAt[pc.fort] ||= []).push(pc);
  for (const f of Object.values(td.forts)) {
    const x = cx(f.cell);
    const y = cy(f.cell);
    const broken = f.durability <= 0;
    const ratio = f.max_durability > 0 ? Math.max(0, Math.min(1, f.durability / f.max_durability)) : 0;
    const size = S * 1.3;
    const pcs = pcsAt[f.id] || [];
    layers.forts.appendChild(h("g", { class: `td-fort tier${f.tier}${broken ? " broken" : ""}${f.final ? " final" : ""}`,
                                      dataset: { id: f.id, durability: f.durability } },
      h("rect.td-fort-box", { x: x - size / 2, y: y - size / 2, width: size, height: size, rx: 5 }),
      h("rect.td-bar-bg", { x: x - size / 2 + 3, y: y + size / 2 - 8, width: size - 6, height: 5 }),
      h("rect.td-bar", { x: x - size / 2 + 3, y: y + size / 2 - 8, width: (size - 6) * ratio, height: 5 }),
      h("text.td-dur", { x, y: y + 5, "text-anchor": "middle" }, broken ? "✕" : String(f.durability)),
      h("text.td-fort-name", { x, y: y + size / 2 + 13, "text-anchor": "middle" }, f.name),
      pcs.length ? pcChip(ctx, pcs, x, y - size / 2 - 13) : null,
      h("title", `${f.name} ${t("td.durability")} ${f.durability}/${f.max_durability}`)));
  }
  // Walkers: groups (circles with their count) and special individuals (diamonds).
  const byCell = new Map();
  const walkers = [
    ...Object.values(td.groups).map((g) => ({ kind: "group", w: g })),
    ...Object.values(td.individuals).map((i) => ({ kind: "individual", w: i })),
  ];
  for (const it of walkers) {
    const key = `${it.w.cell.x},${it.w.cell.y}`;
    if (!byCell.has(key)) byCell.set(key, []);
    byCell.get(key).push(it);
  }
  const labels = pieceLabels(Object.values(td.individuals).map((i) => ({ id: i.id, name: nameIn(i.name) })));
  for (const items of byCell.values()) {
    items.forEach((it, i) => {
      const w = it.w;
      const atFort = w.fort && !w.waiting;
      const ox = atFort ? S * 0.75 + i * S * 0.75 : (i - (items.length - 1) / 2) * S * 0.8;
      const oy = atFort ? -S * 0.7 : 0;
      const x = cx(w.cell) + ox;
      const y = cy(w.cell) + oy;
      const label = it.kind === "group" ? String(w.count) : labels.get(w.id);
      const shape = it.kind === "group"
        ? h("circle", { cx: 0, cy: 0, r: S * 0.4 })
        : h("polygon", { points: `0,${-S * 0.45} ${S * 0.45},0 0,${S * 0.45} ${-S * 0.45},0` });
      layers.walkers.appendChild(h("g", {
        class: `td-${it.kind}${w.snared ? " snared" : ""}${w.waiting ? " waiting" : ""}${td.marks[w.id] ? " marked" : ""}`,
        transform: `translate(${x.toFixed(1)},${y.toFixed(1)})`,
        dataset: { id: w.id, x: w.cell.x, y: w.cell.y, fort: w.fort || "" },
      }, shape, h("text", { x: 0, y: 5, "text-anchor": "middle" }, label),
        h("title", `${w.name} ${it.kind === "group" ? `${t("td.count")} ${w.count}` : ""} — ${whereText(td, w)}`)));
    });
  }
  return tdBoard(ctx, td, svg, { S, w, hh, pad, layer: layers.pcs });
}

// -- lists -------------------------------------------------------------------------------

function fortsTable(ctx, td) {
  const groupsAt = (fid) => Object.values(td.groups).filter((g) => g.fort === fid && !g.waiting);
  const pcsAt = (fid) => Object.values(td.pcs).filter((p) => p.fort === fid);
  const rows = Object.values(td.forts).sort((a, b) => a.tier - b.tier).map((f) => h("tr", {
    class: f.durability <= 0 ? "broken" : "", dataset: { fort: f.id } },
    h("td", f.name, f.final ? h("span.badge", t("td.final")) : null,
      f.durability <= 0 ? h("span.badge.bad", t("td.broken")) : null),
    h("td.num", f.tier),
    h("td.num.td-durability", ctx.editable([K, "forts", f.id, "durability"], f.durability, { type: "int", label: f.name }),
      h("span.muted", ` / `), ctx.editable([K, "forts", f.id, "max_durability"], f.max_durability, { type: "int", label: f.name })),
    h("td", groupsAt(f.id).map((g) => `${g.name}(${g.count})`).join("、") || "—"),
    h("td", pcsAt(f.id).length ? pcsAt(f.id).map((p, i) => [i ? "、" : "", isMine(ctx, p) ? h("b.mine", p.name) : p.name]) : "—")));
  return h("table.grid-table.td-forts-table",
    h("thead", h("tr", h("th", t("td.fort")), h("th", t("td.tier")), h("th", t("td.durability")),
      h("th", t("td.groups")), h("th", t("td.pcs")))),
    h("tbody", rows));
}

function groupsTable(ctx, td) {
  const groups = Object.values(td.groups);
  const inds = Object.values(td.individuals);
  if (!groups.length && !inds.length) return h("p.muted.td-no-groups", t("td.none"));
  const rows = groups.map((g) => h("tr", { dataset: { group: g.id } },
    h("td", { title: g.id }, g.name),
    h("td.num", ctx.editable([K, "groups", g.id, "count"], g.count, { type: "int", label: g.name })),
    h("td.td-where", whereText(td, g)),
    h("td", g.snared ? h("span.badge.warn", t("td.snared")) : null,
      td.marks[g.id] ? h("span.badge.warn", t("td.marked")) : null,
      g.san ? h("span.muted.small", ` ${t("td.san")} ${g.san}`) : null)));
  const irows = inds.map((i) => h("tr", { dataset: { individual: i.id } },
    h("td", { title: i.id }, "◆ ", i.name),
    h("td.num", i.hp ?? "—"),
    h("td.td-where", whereText(td, i)),
    h("td.small", [i.fort_damage ? `fort −${i.fort_damage}` : "", i.penalty_dice ? `penalty ${i.penalty_dice}` : "",
                   i.doubles_attack ? "×2" : ""].filter(Boolean).join(" "))));
  return h("table.grid-table.td-groups-table",
    h("thead", h("tr", h("th", t("td.group")), h("th", t("td.count")), h("th", t("td.where")), h("th", ""))),
    h("tbody", rows, irows));
}

function pcsTable(ctx, td) {
  const forts = Object.values(td.forts);
  const fortOptions = [{ value: null, label: t("td.unplaced") }, ...forts.map((f) => ({ value: f.id, label: f.name }))];
  const rows = Object.values(td.pcs).map((pc) => {
    let where;
    if (td.phase === "setup" && ctx.isGM) {
      where = h("select.td-place", {
        "aria-label": `${pc.name} ${t("td.place")}`,
        dataset: { pc: pc.id },
        on: { change: (ev) => ev.target.value && ctx.act({ kind: "td.pc.place", pc: pc.id, fort: ev.target.value }) },
      }, h("option", { value: "", selected: !pc.fort }, t("td.unplaced")),
        forts.map((f) => h("option", { value: f.id, selected: pc.fort === f.id }, f.name)));
    } else {
      where = ctx.editable([K, "pcs", pc.id, "fort"], pc.fort,
        { options: fortOptions, display: pc.fort ? nameOf(td, pc.fort) : t("td.unplaced"), label: pc.name });
    }
    const weapons = Object.values(pc.weapons).map((w) => {
      const spec = td.weapons[w.weapon] || {};
      const base = [K, "pcs", pc.id, "weapons", w.weapon];
      return h("div.td-weapon", spec.name || w.weapon, " ",
        spec.magazine === null || spec.magazine === undefined ? h("span.muted", "∞")
          : [h("span.muted", `${t("td.loaded")} `), ctx.editable([...base, "loaded"], w.loaded, { type: "int" }), h("span.muted", `/${spec.magazine}`)],
        spec.special_ammo ? [" ", h("span.muted", `${t("td.special")} `), ctx.editable([...base, "special_left"], w.special_left, { type: "int" })] : null,
        " ", h("span.muted", `${t("td.used")} `), ctx.editable([...base, "used"], w.used, { type: "int" }),
        h("span.muted", `/${spec.attacks_per_round ?? "?"}`));
    });
    const player = pc.player ? (ctx.state.meta?.players?.[pc.player]?.name || pc.player) : t("td.npc");
    return h("tr", { class: isMine(ctx, pc) ? "mine" : "", dataset: { pc: pc.id } },
      h("td", pc.name, isMine(ctx, pc) ? [" ", h("span.badge.me", t("pl.you"))] : null, pc.acted?.length ? h("span.muted.small.td-acted", ` [${pc.acted.map((a) => t(`ptd.acted.${a}`)).join("・")}]`) : null),
      h("td.small", player), h("td", where), h("td", weapons));
  });
  return h("table.grid-table.td-pcs-table",
    h("thead", h("tr", h("th", t("td.pcs")), h("th", t("td.player")), h("th", t("td.fort")), h("th", t("td.weapons")))),
    h("tbody", rows));
}

function trapsList(ctx, td) {
  const traps = Object.values(td.traps);
  if (!traps.length) return h("p.muted", t("td.none"));
  return h("ul.plain.td-traps-list", traps.map((tr) => h("li", { dataset: { trap: tr.id } },
    h("span", { class: `badge trap-${tr.kind}` }, t(`td.trap.${tr.kind}`)), " ",
    `${t("td.passage")} ${tr.passage}`, tr.pc ? ` (${td.pcs[tr.pc]?.name ?? tr.pc})` : "", " ",
    h("span.muted", `${t("td.spent")}: `), ctx.editable([K, "traps", tr.id, "spent"], tr.spent, { type: "bool" }))));
}

function waveEntries(td, entries) {
  return h("ul.plain.td-wave-entries", entries.map((e) => h("li",
    e.special ? "◆ " : "", e.name, e.special ? "" : ` ×${e.count}`, " — ", nameOf(td, e.direction),
    e.san ? h("span.muted.small", ` ${t("td.san")} ${e.san}`) : null)));
}

function wavesSection(ctx, td) {
  const plan = td.waves;
  if (!plan) return null; // not ours to see (a viewer)
  const body = [];
  if (plan.mode === "fixed") {
    const rounds = Object.keys(plan.rounds).map(Number).sort((a, b) => a - b);
    const future = rounds.filter((r) => r > td.round);
    for (const r of future) {
      body.push(h("div.td-wave", { dataset: { round: r } },
        h("div.td-wave-head", t("td.waves.round", { n: r }),
          r === td.round + 1 ? h("span.badge", t("td.waves.next")) : null),
        waveEntries(td, plan.rounds[r])));
    }
    if (!future.length) body.push(h("p.muted", t("td.none")));
  } else if (plan.mode === "alternate") {
    body.push(h("div.td-wave", h("div.td-wave-head", t("td.waves.odd")), waveEntries(td, plan.odd)));
    body.push(h("div.td-wave", h("div.td-wave-head", t("td.waves.even")), waveEntries(td, plan.even)));
  } else {
    plan.table.forEach((row, i) => body.push(h("div.td-wave",
      h("div.td-wave-head", t("td.waves.table", { n: i + 1 })), waveEntries(td, row))));
  }
  return h("section.sub.td-waves.gm-secret", { dataset: { secretPath: "tower_defense/waves" } },
    h("h4", t("td.waves"), " ", ctx.gmBadge(), h("span.muted.small", ` ${t("td.waves.mode")}: ${t(`td.waves.mode.${plan.mode}`)}`)), body);
}

function render(ctx) {
  const td = ctx.data;
  const outcome = td.outcome !== "none"
    ? h("span", { class: `badge ${td.outcome === "victory" ? "good" : "bad"}` }, t(`td.outcome.${td.outcome}`)) : null;
  const phaseOptions = phases(K).map((p) => ({ value: p.id, label: phaseName(p.id) }));
  const status = h("div.td-status",
    h("span.td-round", ctx.editable([K, "round"], td.round, { type: "int", display: t("td.round", { n: td.round }) })),
    h("span.td-phase", ctx.editable([K, "phase"], td.phase, { options: phaseOptions, display: phaseName(td.phase) })),
    outcome,
    ctx.isGM ? h("span.td-outcome", h("span.muted", `${t("td.outcome")}: `),
      ctx.editable([K, "outcome"], td.outcome, {
        options: ["none", "victory", "defeat"].map((o) => ({ value: o, label: t(`td.outcome.${o}`) })),
        display: t(`td.outcome.${td.outcome}`) })) : null);
  const victory = pick(td.victory) ? h("p.td-victory.small", h("b", `${t("td.victory")}: `), pick(td.victory)) : null;
  return h("div.td",
    status, victory,
    h("div.td-map-wrap", mapSvg(ctx, td)),
    h("div.td-columns",
      h("section.sub", h("h4", t("td.forts")), fortsTable(ctx, td)),
      h("section.sub", h("h4", t("td.groups")), groupsTable(ctx, td))),
    h("section.sub", h("h4", t("td.pcs")), pcsTable(ctx, td)),
    h("div.td-columns",
      h("section.sub", h("h4", t("td.traps")), trapsList(ctx, td)),
      wavesSection(ctx, td)));
}

function nextPhase(ctx) {
  const td = ctx.state[K];
  return ctx.act({ kind: "td.next_phase", expect: td.phase });
}

/** Who stands at a fort, by name (★ marks the viewing player's own PC), above the fort. */
function pcChip(ctx, pcs, x, y) {
  const label = pcs.map((p) => `${isMine(ctx, p) ? "★" : ""}${short(p.name, 6)}`).join("・");
  const width = [...label].reduce((w, ch) => w + (ch.charCodeAt(0) > 0x2e80 ? 12 : 7), 12);
  const mine = pcs.some((p) => isMine(ctx, p));
  return h("g", { class: mine ? "td-pcs mine" : "td-pcs", dataset: { pcs: pcs.map((p) => p.id).join(" ") } },
    h("rect", { x: x - width / 2, y: y - 9, width, height: 18, rx: 9 }),
    h("text", { x, y: y + 5, "text-anchor": "middle" }, label),
    h("title", pcs.map((p) => p.name).join("、")));
}

function short(text, n) {
  const chars = [...String(text)];
  return chars.length > n ? `${chars.slice(0, n - 1).join("")}…` : chars.join("");
}

/** The timeline's sentence for a `td.*` action, with names from the state; a PC's action
 * sent by the GM (their NPC, an absent player's PC) starts 「GMとして：」. */
function describe(a, state, entry) {
  const actor = entry?.actor;
  const td = state[K];
  if (!td || !String(a.kind || "").startsWith("td.")) return null;
  const name = (table, id) => (table && table[id] && table[id].name) || id || "?";
  const trapWord = { explosive: t("td.trap.explosive"), snare: t("td.trap.snare") };
  const p = {
    pc: name(td.pcs, a.pc), fort: name(td.forts, a.fort || a.to), group: name(td.groups, a.group),
    weapon: name(td.weapons, a.weapon), direction: name(td.directions, a.direction),
    passage: a.passage, trap: trapWord[a.trap] || a.trap, name: a.name || name(td.individuals, a.individual),
    count: a.count, outcome: a.outcome ? t(`td.outcome.${a.outcome}`) : "",
    n: a.shots ?? (a.results ? a.results.length : 1),
  };
  const key = `td.do.${a.kind.slice(3)}`;
  const text = t(key, p);
  if (text === key) return null;
  return a.pc ? asGMWords(actor, td.pcs?.[a.pc]?.player, state, text) : text;
}

registerPanel({
  id: "tower_defense",
  key: K,
  order: 10,
  title: () => t("td.title"),
  strings: STRINGS,
  rules: RULES,
  secret: (path) => path[0] === K && path[1] === "waves",
  describe,
  headline: (ctx) => {
    const td = ctx.data;
    const survive = td.victory?.kind === "survive" && td.victory.rounds;
    const round = survive ? t("td.round_of", { n: td.round, of: td.victory.rounds }) : t("td.round", { n: td.round });
    return `${round} · ${phaseName(td.phase)}${td.outcome !== "none" ? ` · ${t(`td.outcome.${td.outcome}`)}` : ""}`;
  },
  commands: [{
    id: "td.next_phase",
    key: "n",
    label: (ctx) => t("td.next", { phase: phaseName(phaseAfter(K, ctx.data.phase)) }),
    enabled: (ctx) => ctx.data.outcome === "none",
    run: nextPhase,
  }],
  render,
});
