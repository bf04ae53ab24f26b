import { describe, expect, it } from 'vitest';
import { PROJECT_FIELD_KINDS } from '../src/api/project-fields.ts';
import { parseProject, projectSchema } from '../src/api/project-schema.ts';

/**
 * `parseProject` skips zod for records laid out as zod's output would be. These tests hold it to
 * zod's answer: the same records accepted, the same bytes in the JSON Lines export
 * (`JSON.stringify`, field order included), the same error for the rest.
 */

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** JSON texts of values of every kind, edge cases included (1e999 parses to Infinity). */
const VALUE_TEXTS = ['0', '-0', '7', '-12', '1.5', '-0.25', '9007199254740991', '9007199254740993', '1e21', '1e999', '-1e999', '"text"', '""', '"12"', 'true', 'false', 'null', '{}', '{"a":1}', '[]', '[1,"x"]'];

function pick<T>(rnd: () => number, items: readonly T[]): T {
  return items[Math.floor(rnd() * items.length)]!;
}

/** A typical value for a field of this kind, as JSON text. */
function typical(rnd: () => number, kind: string, name: string): string {
  if (name === 'ID') return String(1 + Math.floor(rnd() * 1e6));
  if (name === 'NAME') return JSON.stringify(`Project ${Math.floor(rnd() * 1000)}`);
  switch (kind) {
    case 'integer':
      return String(Math.floor(rnd() * 2000));
    case 'number':
      return String(Math.round(rnd() * 1e6) / 100);
    case 'string':
      return JSON.stringify(`v${Math.floor(rnd() * 100)}`);
    case 'boolean':
      return rnd() < 0.5 ? 'true' : 'false';
    default:
      return 'null';
  }
}

/** One record as JSON text: mostly the service's layout, with one or two disturbances. */
function recordText(rnd: () => number): string {
  let fields: [string, string][] = PROJECT_FIELD_KINDS.filter(() => rnd() > 0.05).map(([name, kind]) => [name, typical(rnd, kind, name)]);
  const disturbances = Math.floor(rnd() * 3);
  for (let d = 0; d < disturbances; d++) {
    const r = rnd();
    if (r < 0.45 && fields.length > 0) {
      // a value of another kind
      const at = Math.floor(rnd() * fields.length);
      fields[at] = [fields[at]![0], pick(rnd, VALUE_TEXTS)];
    } else if (r < 0.6) {
      fields.push([pick(rnd, ['EXTRA', 'ZZ_NEW', '1', '__proto__', 'constructor']), pick(rnd, VALUE_TEXTS)]);
    } else if (r < 0.7) {
      fields.unshift(['AN_UNKNOWN_FIRST', pick(rnd, VALUE_TEXTS)]);
    } else if (r < 0.85 && fields.length > 2) {
      // two known fields swapped
      const a = Math.floor(rnd() * fields.length);
      const b = Math.floor(rnd() * fields.length);
      [fields[a], fields[b]] = [fields[b]!, fields[a]!];
    } else {
      fields = fields.filter(([name]) => name !== pick(rnd, ['ID', 'NAME']));
    }
  }
  return `{${fields.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
}

function zodOutcome(value: unknown): { ok: true; json: string } | { ok: false } {
  const r = projectSchema.safeParse(value);
  return r.success ? { ok: true, json: JSON.stringify(r.data) } : { ok: false };
}

function fastOutcome(value: unknown): { ok: true; json: string } | { ok: false; message: string } {
  try {
    return { ok: true, json: JSON.stringify(parseProject(value, 0)) };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

describe('parseProject without zod for records in the schema layout', () => {
  it('accepts exactly the records zod accepts, with the same JSON Lines bytes, over 1,500 generated records', () => {
    const rnd = random(15);
    let accepted = 0;
    let refused = 0;
    for (let n = 0; n < 1_500; n++) {
      const text = recordText(rnd);
      const zod = zodOutcome(JSON.parse(text));
      const fast = fastOutcome(JSON.parse(text));
      if (zod.ok !== fast.ok || (zod.ok && fast.ok && zod.json !== fast.json)) {
        expect({ text, fast }).toEqual({ text, fast: zod });
      }
      if (zod.ok) accepted++;
      else refused++;
    }
    // Both sides of the decision were exercised, many times each.
    expect(accepted).toBeGreaterThan(250);
    expect(refused).toBeGreaterThan(250);
  });

  it('agrees with zod on every edge value in every kind of field, in the schema layout', () => {
    for (const [name] of PROJECT_FIELD_KINDS) {
      for (const valueText of VALUE_TEXTS) {
        const fields = PROJECT_FIELD_KINDS.map(([n, kind]) => [n, n === name ? valueText : typical(() => 0.5, kind, n)]);
        const text = `{${fields.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
        const zod = zodOutcome(JSON.parse(text));
        const fast = fastOutcome(JSON.parse(text));
        expect({ field: name, value: valueText, ok: fast.ok }).toEqual({ field: name, value: valueText, ok: zod.ok });
      }
    }
  });

  it('returns the record zod would, and words a refusal as before', () => {
    const record = JSON.parse('{"ID":7,"NAME":"p","LAT":45.5,"IS_ARCHIVED":false,"SURPRISE":[1]}');
    expect(parseProject(record, 0)).toEqual(projectSchema.parse(record));
    expect(JSON.stringify(parseProject(record, 0))).toBe('{"ID":7,"NAME":"p","LAT":45.5,"IS_ARCHIVED":false,"SURPRISE":[1]}');
    // The same layout with a wrong kind right after an accepted record: the cached layout must not let it through.
    expect(() => parseProject(JSON.parse('{"ID":8,"NAME":"q","LAT":"45.5","IS_ARCHIVED":false,"SURPRISE":[1]}'), 12)).toThrow(
      /^project record 12 \(ID 8\) of the listing is invalid: field LAT: /,
    );
    expect(() => parseProject(JSON.parse('{"ID":9,"NAME":"r","LAT":1e999}'), 3)).toThrow(/^project record 3 \(ID 9\) of the listing is invalid: field LAT: /);
  });
});
