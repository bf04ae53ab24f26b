import { describe, expect, it } from 'vitest';
import { estimatePayloadSchema } from '../src/payloads/index.ts';
import { surelyValidEstimate } from '../src/mapping/estimate-check.ts';

// The planner trusts the hand check instead of zod when it passes: it must never pass a payload
// that the schema refuses. Payloads are generated around the schema's edges (every field, wrong
// types, missing names, unknown keys, non-finite numbers, non-integer IDs) with a fixed seed.
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const TEXT = ['DESCRIPTION', 'COST_CODE', 'BID_NOTES', 'NOTES_TEAMLINK', 'NOTES_BID', 'FIELD_NOTES', 'NOTES_CLIENTLINK', 'NOTES_FIELD', 'GENERAL_NOTES', 'NOTES_GENERAL'];
const NUM = ['CLASSIFICATION', 'QTY', 'RATE_QTY', 'UNIT_COST', 'RATE', 'FIVE_COLUMN_MATERIAL', 'LINE_ITEM_MARKUP', 'LINE_ITEM_MARKUP_TYPE', 'ADJUSTMENT', 'INVOICED_AMOUNTS'];
const ODD: unknown[] = ['', ' ', 'x', 0, -0, 1.5, -3, 2 ** 60, Infinity, -Infinity, NaN, true, null, [], {}, undefined];

function generate(r: () => number): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const odd = (): boolean => r() < 0.04;
  const node = (line: boolean): Record<string, unknown> => {
    const n: Record<string, unknown> = { NAME: odd() ? pick(ODD) : pick(['Framing', ' Kitchen ', 'x']) };
    if (odd()) delete n.NAME;
    for (const k of TEXT) if (r() < 0.2) n[k] = odd() ? pick(ODD) : 'note';
    if (r() < 0.3) n.COST_CODE_ID = odd() ? pick(ODD) : 1 + Math.floor(r() * 500);
    if (r() < 0.1) n.TRAFFIC_COLOR = odd() ? pick(ODD) : pick(['red', 3]);
    if (line) {
      for (const k of NUM) if (r() < 0.2) n[k] = odd() ? pick(ODD) : Math.round(r() * 1e6) / 100;
      if (r() < 0.1) n.STATUS = odd() ? pick(ODD) : pick(['open', 2]);
      if (r() < 0.3) n.UNIT = odd() ? pick(ODD) : 'ea';
    }
    if (odd()) n[pick(['EXTRA', 'ID', 'SUBCATS', 'ITEMS'])] = 1;
    return n;
  };
  const p: Record<string, unknown> = { NAME: odd() ? pick(ODD) : 'Estimate 1', PROJECT_ID: odd() ? pick(ODD) : 1042 };
  if (r() < 0.3) p.ADVANCED_ESTIMATE = odd() ? pick(ODD) : r() < 0.5;
  if (r() < 0.2) p.FIVE_COLUMN_ESTIMATE = odd() ? pick(ODD) : r() < 0.5;
  if (r() < 0.2) p.TOTAL_PRICE = odd() ? pick(ODD) : 1234.5;
  if (r() < 0.9) {
    p.CATS = Array.from({ length: Math.floor(r() * 3) }, () => {
      const cat = node(false);
      if (r() < 0.9) {
        cat.SUBCATS = Array.from({ length: Math.floor(r() * 3) }, () => {
          const sub = node(true);
          if (r() < 0.8) sub.ITEMS = Array.from({ length: Math.floor(r() * 4) }, () => (odd() ? pick(ODD) : node(true)));
          return sub;
        });
      }
      return odd() ? pick(ODD) : cat;
    });
  }
  if (r() < 0.5) {
    p.COMS = Array.from({ length: Math.floor(r() * 3) }, () => {
      const m: Record<string, unknown> = {};
      if (r() < 0.9) m.NAME = odd() ? pick(ODD) : 'Overhead';
      if (r() < 0.9) m.VALUE = odd() ? pick(ODD) : 8;
      if (r() < 0.7) m.MARKUP_TYPE = odd() ? pick(ODD) : pick([1, '1']);
      if (odd()) m.OTHER = 1;
      return m;
    });
  }
  if (odd()) p.UNKNOWN = 'x';
  return p;
}

describe('the hand check of an estimate payload', () => {
  it('never passes a payload that the schema refuses, and passes the valid ones the planner builds', () => {
    const r = rng(20240601);
    let passed = 0;
    let refused = 0;
    for (let i = 0; i < 8_000; i++) {
      const p = generate(r);
      const schemaOk = estimatePayloadSchema.safeParse(p).success;
      if (surelyValidEstimate(p)) {
        expect(schemaOk, JSON.stringify(p)).toBe(true);
        passed++;
      } else if (!schemaOk) refused++;
    }
    // Both sides are exercised: many valid payloads pass, many invalid ones are left to zod.
    expect(passed).toBeGreaterThan(800);
    expect(refused).toBeGreaterThan(800);
  });

  it('passes a full payload as the planner writes it, and leaves non-finite numbers, empty names and unknown keys to the schema', () => {
    const ok = {
      NAME: 'Kitchen remodel', PROJECT_ID: 1042, ADVANCED_ESTIMATE: true, TOTAL_PRICE: 15000,
      CATS: [{ NAME: 'Cabinetry', DESCRIPTION: 'Upper and lower', COST_CODE_ID: 100, SUBCATS: [{ NAME: 'Labor', UNIT: 'hr', QTY: 12, ITEMS: [{ NAME: 'Install', QTY: 2, UNIT_COST: 1234.5, STATUS: 'open' }] }] }],
      COMS: [{ NAME: 'Overhead', VALUE: 8, MARKUP_TYPE: 1 }],
    };
    expect(surelyValidEstimate(ok)).toBe(true);
    expect(estimatePayloadSchema.safeParse(ok).success).toBe(true);
    for (const bad of [
      { ...ok, TOTAL_PRICE: Infinity },
      { ...ok, NAME: '  ' },
      { ...ok, PROJECT_ID: 0 },
      { ...ok, EXTRA: 1 },
      { ...ok, CATS: [{ NAME: 'Cabinetry', COST_CODE_ID: 1.5 }] },
      { ...ok, CATS: [{ NAME: 'Cabinetry', QTY: 1 }] },
    ]) {
      expect(surelyValidEstimate(bad)).toBe(false);
      expect(estimatePayloadSchema.safeParse(bad).success).toBe(false);
    }
  });
});
