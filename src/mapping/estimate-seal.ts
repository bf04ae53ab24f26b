/**
 * Sealing an estimate group: its objects turned into its canonical JSON, validated once, and
 * dropped; and reopened from that JSON when a later row comes back to it. See
 * `sealGroup` for why.
 */
import { ESTIMATE_COMMON_FIELDS, ESTIMATE_LINE_FIELDS, ESTIMATE_TOP_FIELDS, estimatePayloadSchema, type EstimatePayload } from '../payloads/index.ts';
import { surelyValidEstimate } from './estimate-check.ts';
import type { EstimateGroup, Level, Node } from './estimate-group.ts';
import { TextArena } from './text-arena.ts';

/**
 * Key order of the payload's objects: the order of payloads/estimate-fields.ts. Payloads are written in
 * this order whatever the order of the file's columns and rows, so their JSON is canonical and
 * hashes the same on every run (items are built in this order already; estimates, categories
 * and subcategories, which several rows fill, are usually filled in this order too, and are put
 * in order when sealed otherwise: `EstimateGroup.unordered`).
 */
const TOP_ORDER = ['NAME', 'PROJECT_ID', ...ESTIMATE_TOP_FIELDS.map(([f]) => f), 'CATS', 'COMS'];
const CAT_ORDER = ['NAME', ...ESTIMATE_COMMON_FIELDS.map(([f]) => f), 'SUBCATS'];
const SUB_ORDER = ['NAME', ...ESTIMATE_COMMON_FIELDS.map(([f]) => f), ...ESTIMATE_LINE_FIELDS.map(([f]) => f), 'ITEMS'];

function ordered<T extends Record<string, unknown>>(node: T, order: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const k of order) if (node[k] !== undefined) out[k] = node[k];
  return out as T;
}

/** What a sealed group holds instead of its objects; frozen, so that a write to a sealed group fails loudly. */
const SEALED_PAYLOAD = Object.freeze({ NAME: '', PROJECT_ID: 0 }) as EstimatePayload & Record<string, unknown>;
const SEALED_CATS = Object.freeze([]) as unknown as Level[];

/**
 * Turns an open group into its canonical JSON, validated once, and drops its objects. Why:
 * every estimate must stay open until the file ends (its rows need not be adjacent), and
 * 100,000 open object graphs were most of a big import's memory and of the garbage
 * collector's work. Rows of one estimate are nearly always adjacent, so a group is sealed
 * when a row of another group comes, and reopened from its JSON (`unsealGroup`) in the rare file
 * that comes back to it; the JSON is the text the plan keeps and hashes anyway. A group that
 * is reopened is sealed (and validated) again, so what counts is its last seal, at the latest
 * when the file ends.
 */
export function sealGroup(g: EstimateGroup, texts: TextArena): void {
  let levelsOn: Array<Array<string | number> | undefined> | undefined;
  const levelLines: Array<number | undefined> = [];
  let n = 0;
  for (const cat of g.cats) n += 1 + (cat.subs?.length ?? 0);
  let k = 0;
  for (const cat of g.cats) {
    if (cat.setOn !== undefined) (levelsOn ??= new Array(n))[k] = cat.setOn.slice();
    levelLines[k] = cat.line;
    k++;
    if (cat.subs !== undefined) {
      for (const sub of cat.subs) {
        if (sub.setOn !== undefined) (levelsOn ??= new Array(n))[k] = sub.setOn.slice();
        levelLines[k] = sub.line;
        k++;
      }
    }
  }
  // Usually every object's keys were added in the canonical order already (`unordered`): its JSON is then the payload's own.
  const payload = g.unordered ? canonical(g) : g.payload;
  g.issues = undefined;
  // One validation per estimate: the hand check when it can vouch for the payload, zod (whose
  // messages the report shows) when it cannot. A group already invalid is never sent.
  if (g.badLines === undefined && g.conflict === undefined && !surelyValidEstimate(payload)) {
    const checked = estimatePayloadSchema.safeParse(payload);
    if (!checked.success) g.issues = checked.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(estimate)'}: ${i.message}`).join('; ');
  }
  // Hashed when the record is asked for it (`JsonRecord.contentHash`).
  g.json = texts.add(JSON.stringify(payload));
  g.levelsOn = levelsOn;
  g.levelLines = k === 0 ? undefined : levelLines;
  release(g);
  g.payload = SEALED_PAYLOAD;
  g.cats = SEALED_CATS;
  // At its exact length: arrays grown by push keep spare capacity.
  g.lines = g.lines.slice();
}

/** Rebuilds a sealed group's objects from its JSON, as they were when it was sealed. */
export function unsealGroup(g: EstimateGroup): void {
  const payload = JSON.parse(TextArena.read(g.json!)) as EstimatePayload & Record<string, unknown>;
  const levelsOn = g.levelsOn;
  const levelLines = g.levelLines;
  const cats: Level[] = [];
  let k = 0;
  for (const node of (payload.CATS ?? []) as Node[]) {
    const cat: Level = { node, setOn: levelsOn?.[k], subs: undefined, line: levelLines?.[k] };
    k++;
    for (const sub of (node.SUBCATS ?? []) as Node[]) {
      (cat.subs ??= []).push({ node: sub, setOn: levelsOn?.[k], subs: undefined, line: levelLines?.[k] });
      k++;
    }
    cats.push(cat);
  }
  g.payload = payload;
  g.cats = cats;
  g.json = undefined;
  g.levelsOn = undefined;
  g.levelLines = undefined;
  g.issues = undefined;
  // Its JSON was written in the canonical order.
  g.unordered = false;
}

/**
 * The payload with every object's keys in the seed's order (see TOP_ORDER), as new objects and
 * arrays, for a group whose objects got a key after one that comes later (`unordered`): the
 * group's own objects are only read. Why not reorder them in place: once the
 * group is sealed they are garbage, and writing fresh arrays into them (some already promoted
 * to the old generation by a collection that came while the group was open) would make the
 * next young-generation collections keep those arrays alive through them (see `release`).
 */
function canonical(g: EstimateGroup): EstimatePayload {
  const top = g.payload;
  const out = ordered(top, TOP_ORDER) as EstimatePayload & Record<string, unknown>;
  const cats = top.CATS as Node[] | undefined;
  if (cats !== undefined) {
    const exactCats = new Array<Node>(cats.length);
    for (let i = 0; i < cats.length; i++) {
      const cat = cats[i]!;
      const c = ordered(cat, CAT_ORDER);
      const subs = cat.SUBCATS as Node[] | undefined;
      if (subs !== undefined) {
        const exactSubs = new Array<Node>(subs.length);
        for (let j = 0; j < subs.length; j++) exactSubs[j] = ordered(subs[j]!, SUB_ORDER);
        c.SUBCATS = exactSubs;
      }
      exactCats[i] = c;
    }
    out.CATS = exactCats;
  }
  return out;
}

/**
 * Empties the arrays of a group's objects once they are sealed away. Why: a young-generation
 * collection treats every reference held by an old-generation object as live, without asking
 * whether that object is still reachable. Objects of an open group that a collection promoted
 * (it came while the group was open) stay in the old generation, dead, until the next full
 * collection, and kept the items and arrays they point to alive through every young
 * collection until then, which promoted those too: about 500 MB promoted on the
 * 1,000,000-row bench file, against about 200 MB with the arrays emptied.
 */
function release(g: EstimateGroup): void {
  for (let i = 0; i < g.cats.length; i++) {
    const cat = g.cats[i]!;
    if (cat.subs !== undefined) {
      for (let j = 0; j < cat.subs.length; j++) {
        const items = cat.subs[j]!.node.ITEMS as Node[] | undefined;
        if (items !== undefined) items.length = 0;
      }
      cat.subs.length = 0;
      (cat.node.SUBCATS as Node[]).length = 0;
    }
  }
  g.cats.length = 0;
  if (g.payload.CATS !== undefined) g.payload.CATS.length = 0;
  if (g.payload.COMS !== undefined) g.payload.COMS.length = 0;
}
