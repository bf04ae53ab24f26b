import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { contentHashOfBytes, contentHashOfJson } from '../src/mapping/content-hash.ts';
import { numberOf, textOf } from '../src/mapping/fast-cells.ts';
import { parseNumber, parseText, US_RULES, type ReadingRules } from '../src/mapping/values.ts';

const COMMA: ReadingRules = { decimalSeparator: ',', dateOrder: 'DMY' };

/** What the full parser gives, or 'error' when it refuses the cell. */
function outcome(parse: (cell: string) => unknown, cell: string): unknown {
  try {
    return parse(cell);
  } catch {
    return 'error';
  }
}

describe('the planning fast paths read cells exactly as the full parsers', () => {
  test('dollar amounts, percentages and plain decimals give the same number as parseNumber', () => {
    const cells = [
      '$1,234.56', '$12', '$0.50', '$0', '$007', '$1,000,000.00', '$1,234,567,890,123.5', '$999.999',
      '10%', '12.5%', '0%', '00%', '007%', '100.000%', '8%',
      // shapes the fast paths leave to parseNumber
      '$1234', '$1,23', '$1,234.', '1.%', '$10%', '-$5', '($5)', ' $5', '$ 5', '1,234', '5 %', '-3%',
      '12', '-3', '14.25', '0.0', '-0',
    ];
    for (let i = 0; i < 2000; i++) {
      cells.push(`$${(1 + ((i * 37) % 1999)).toLocaleString('en-US')}.${String(i % 100).padStart(2, '0')}`, `${i}%`, `${i / 8}%`);
    }
    for (const rules of [US_RULES, COMMA]) {
      for (const cell of [...cells, '1.234', '1.234,50', '2,500', '480,00', '12.5', '2.500', '-2.500', '0.500', '1234.567', '$2.500', '2.500%', '1234567890123456', '123456789012345', '1234567890.1234567', '-', ' $ -   ', "1'234.50"]) {
        const fast = outcome((c) => numberOf(c, rules), cell);
        const full = outcome((c) => parseNumber(c, rules), cell);
        expect({ cell, separator: rules.decimalSeparator, same: Object.is(fast, full) }).toEqual({ cell, separator: rules.decimalSeparator, same: true });
      }
    }
    expect(numberOf('$1,234.56', US_RULES)).toBe(1234.56);
    expect(numberOf('12.5%', US_RULES)).toBe(12.5);
    expect(numberOf('1.234,50', COMMA)).toBe(1234.5);
  });

  test('numbers of every length and shape near the fast shapes\' limits give the same number as parseNumber', () => {
    const cells = ['-0', '-0.0', '00', '-00.50', '5.', '.5', '-', '$', '%', '$,', '$1,', '$1,2', '$1,234,', '$.5', '$1.', '1.2.3', '1..2', '1,234,567%', '1234567%', '123456%', '1.%', '-1.5%'];
    for (let whole = 1; whole <= 17; whole++) {
      for (let decimals = 0; decimals <= 5; decimals++) {
        const int = '9876543210987654321'.slice(0, whole);
        const plain = decimals === 0 ? int : `${int}.${'1234567'.slice(0, decimals)}`;
        cells.push(plain, `-${plain}`, `${plain}%`, `$${plain}`, `0${plain}`);
        cells.push(`$${Number(int).toLocaleString('en-US')}${decimals === 0 ? '' : `.${'05'.repeat(3).slice(0, decimals)}`}`);
      }
    }
    for (const rules of [US_RULES, COMMA, { ...US_RULES, currency: 'EUR' }]) {
      for (const cell of cells) {
        // Twice: the second reading is the one remembered from the first.
        for (let i = 0; i < 2; i++) {
          const fast = outcome((c) => numberOf(c, rules), cell);
          const full = outcome((c) => parseNumber(c, rules), cell);
          expect({ cell, rules, same: Object.is(fast, full) }).toEqual({ cell, rules, same: true });
        }
      }
    }
  });

  test('texts come back as parseText gives them (trimmed), not shared or changed otherwise', () => {
    for (const cell of ['ea', ' ea ', 'Shaker wall cabinet 30in', '\tx', 'é', '']) expect(textOf(cell)).toBe(parseText(cell));
  });
});

test('the content hash is the first 16 hex digits of the JSON text\'s sha256', () => {
  const json = JSON.stringify({ NAME: 'Estimate 1 – é', PROJECT_ID: 100000, CATS: [{ NAME: 'Framing' }] });
  expect(contentHashOfJson(json)).toBe(createHash('sha256').update(json).digest('hex').slice(0, 16));
});

test('hashing the JSON text and hashing its UTF-8 bytes give the same content hash', () => {
  const json = JSON.stringify({ NAME: 'Béton – 配管 🧱', PROJECT_ID: 7 });
  expect(contentHashOfBytes(Buffer.from(json, 'utf8'))).toBe(contentHashOfJson(json));
});
