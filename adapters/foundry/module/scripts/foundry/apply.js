/**
 * Apply one `table.ops` frame (ops of adapters/foundry.py, docs/adapters.md) to a scene.
 *
 * How this works: every document komasync draws carries `flags.komasync.id`, its stable
 * id; that flag, never a Foundry `_id`, is how ops name documents. Each op is already a
 * batch from the server, and becomes at most one Foundry call per document type:
 *
 *   reset  {ids}                     documents flagged komasync whose id is not listed
 *                                    are deleted (one deleteEmbeddedDocuments per type)
 *   delete {type, ids}               one deleteEmbeddedDocuments
 *   create {type, data[]}            one createEmbeddedDocuments; a document that already
 *                                    exists (same flag id) is updated instead, so a frame
 *                                    applied twice never doubles anything
 *   update {type, updates[{id, data}], options}
 *                                    one updateEmbeddedDocuments; with
 *                                    `options.animate === false` (a snap-back) a v13 token's
 *                                    position goes through TokenDocument#move(method "api")
 *   chat   {messages[]}              ChatMessage.create per message (whisper kept)
 *
 * Every write carries the operation option `komasync: true` and the positions written
 * are remembered (`expect`), so the bridge's own hooks never report its own writes.
 * Nothing here decides a rule: it only does what the ops say.
 */

export const FLAG = "komasync";
export const TYPES = Object.freeze({ Token: "tokens", Drawing: "drawings", Tile: "tiles", Note: "notes" });

/** The komasync stable id of a document, or undefined. */
export function stableIdOf(doc) {
  const f = doc && doc.flags && doc.flags[FLAG];
  return f && typeof f.id === "string" ? f.id : undefined;
}

/** Map stable id → {type, doc} over every komasync document of the scene. */
export function indexScene(scene) {
  const index = new Map();
  for (const [type, coll] of Object.entries(TYPES)) {
    const c = scene[coll];
    if (!c) continue;
    for (const doc of c.values ? c.values() : c) {
      const id = stableIdOf(doc);
      if (id) index.set(id, { type, doc });
    }
  }
  return index;
}

/** Only the keys of `changes` whose values differ from the document's current source. */
function changedOnly(doc, changes) {
  const src = (doc && (doc._source || doc)) || {};
  const out = {};
  for (const [k, v] of Object.entries(changes)) {
    if (JSON.stringify(src[k]) !== JSON.stringify(v)) out[k] = v;
  }
  return out;
}

/**
 * @param {object} frame  a `table.ops` frame
 * @param {object} ctx
 * @param {object} ctx.scene            the scene komasync draws on
 * @param {object} ctx.ChatMessage      Foundry's ChatMessage class
 * @param {number} ctx.generation       game.release.generation (12, 13…)
 * @param {Map<string, {x:number,y:number,at:number}>} [ctx.expect]  positions this bridge wrote
 * @param {() => number} [ctx.now]
 * @param {(type: string, data: object) => object} [ctx.prepareCreate]  platform glue for
 *        a new document's data (e.g. link a PC token to the actor of the same name)
 * @returns {Promise<{calls: number, missing: string[], chats: number}>}
 */
export async function applyFrame(frame, ctx) {
  const { scene } = ctx;
  const expect = ctx.expect || new Map();
  const summary = { calls: 0, missing: [], chats: 0 };
  const opt = (extra) => ({ ...(extra || {}), komasync: true });
  const now = ctx.now || (() => Date.now());

  for (const op of frame.ops || []) {
    const index = indexScene(scene);
    switch (op.op) {
      case "reset": {
        const keep = new Set(op.ids || []);
        const stale = {};
        for (const [id, { type, doc }] of index) {
          if (!keep.has(id)) (stale[type] ||= []).push(doc.id);
        }
        for (const [type, ids] of Object.entries(stale)) {
          await scene.deleteEmbeddedDocuments(type, ids, opt());
          summary.calls += 1;
        }
        break;
      }
      case "delete": {
        const ids = [];
        for (const id of op.ids || []) {
          const hit = index.get(id);
          if (hit && hit.type === op.type) ids.push(hit.doc.id);
        }
        if (ids.length) {
          await scene.deleteEmbeddedDocuments(op.type, ids, opt());
          summary.calls += 1;
        }
        break;
      }
      case "create": {
        const creates = [];
        const updates = [];
        for (const data of op.data || []) {
          const id = data && data.flags && data.flags[FLAG] && data.flags[FLAG].id;
          const hit = id ? index.get(id) : undefined;
          if (hit && hit.type === op.type) {
            const changes = changedOnly(hit.doc, data);
            if (Object.keys(changes).length) updates.push({ ...changes, _id: hit.doc.id });
            if (op.type === "Token" && ("x" in changes || "y" in changes)) {
              expect.set(id, { x: data.x, y: data.y, at: now() });
            }
          } else {
            creates.push(ctx.prepareCreate ? ctx.prepareCreate(op.type, data) : data);
          }
        }
        if (creates.length) {
          await scene.createEmbeddedDocuments(op.type, creates, opt());
          summary.calls += 1;
        }
        if (updates.length) {
          await scene.updateEmbeddedDocuments(op.type, updates, opt(op.type === "Token" ? { animate: false } : {}));
          summary.calls += 1;
        }
        break;
      }
      case "update": {
        const updates = [];
        const moves = [];
        const teleport = op.options && op.options.animate === false;
        for (const u of op.updates || []) {
          const hit = index.get(u.id);
          if (!hit || hit.type !== op.type) {
            summary.missing.push(u.id);
            continue;
          }
          const data = { ...(u.data || {}) };
          if (op.type === "Token" && ("x" in data || "y" in data)) {
            const x = "x" in data ? data.x : hit.doc.x;
            const y = "y" in data ? data.y : hit.doc.y;
            expect.set(u.id, { x, y, at: now() });
            if (teleport && ctx.generation >= 13 && typeof hit.doc.move === "function") {
              // v13: a teleport goes through the movement API (vtt.md), not a slide.
              delete data.x;
              delete data.y;
              moves.push({ doc: hit.doc, x, y });
            }
          }
          if (Object.keys(data).length) updates.push({ ...data, _id: hit.doc.id });
        }
        if (updates.length) {
          await scene.updateEmbeddedDocuments(op.type, updates, opt(op.options));
          summary.calls += 1;
        }
        for (const m of moves) {
          await m.doc.move([{ x: m.x, y: m.y }], opt({ ...(op.options || {}), method: "api" }));
          summary.calls += 1;
        }
        break;
      }
      case "chat": {
        for (const m of op.messages || []) {
          const data = { content: m.content, speaker: m.speaker, flags: m.flags || {} };
          if (Array.isArray(m.whisper) && m.whisper.length) data.whisper = m.whisper;
          await ctx.ChatMessage.create(data);
          summary.chats += 1;
        }
        break;
      }
      default:
        if (ctx.log) ctx.log("warn", `unknown op ${op.op}`);
    }
  }
  return summary;
}
