/**
 * The built-in mappings (`--mapping quickbooks|xero`, README, import bills), by name. A preset names
 * alternative spellings (`Vendor` or `Supplier`, `*ContactName` or `ContactName`), so
 * `resolveColumns` allows its entries for headers a file does not have.
 */
import type { MappingFile } from './mapping-file.ts';
import { QUICKBOOKS_KIND_COLUMNS, QUICKBOOKS_MAPPING } from './quickbooks.ts';
import { XERO_MAPPING } from './xero.ts';

const PRESETS: ReadonlyMap<string, MappingFile> = new Map([
  ['quickbooks', QUICKBOOKS_MAPPING],
  ['xero', XERO_MAPPING],
]);

/** The names `--mapping` accepts in place of a file, in the order help texts list them. */
export const PRESET_NAMES: readonly string[] = [...PRESETS.keys()];

/** The built-in mapping called `name` (`quickbooks`, `xero`; case-insensitive), or undefined. */
export function presetMapping(name: string): MappingFile | undefined {
  return PRESETS.get(name.trim().toLowerCase());
}

/** True when `mapping` is one of the built-in presets (the object itself, not a copy). */
export function isBuiltInPreset(mapping: MappingFile | undefined): boolean {
  if (mapping === undefined) return false;
  for (const preset of PRESETS.values()) if (preset === mapping) return true;
  return false;
}

/** A preset's alternative headers of its rule columns, the preferred first (`kinds.column` is the first). */
const RULE_COLUMNS: ReadonlyMap<MappingFile, { kinds?: readonly string[] }> = new Map([[QUICKBOOKS_MAPPING, { kinds: QUICKBOOKS_KIND_COLUMNS }]]);

/** The headers the mapping's `kinds` or `status` column may have, the preferred first (a user's mapping names one). */
export function ruleColumnHeaders(mapping: MappingFile | undefined, which: 'kinds' | 'status'): readonly string[] {
  const column = mapping?.[which]?.column;
  if (column === undefined) return [];
  return (which === 'kinds' ? RULE_COLUMNS.get(mapping!)?.kinds : undefined) ?? [column];
}

/**
 * Which of two headers a built-in preset maps to one column reads it when a file has both
 * (`Line Amount` and `Amount`): the one listed first in its `columns`, the other left unread. A
 * user's mapping that maps two headers of one file to one column is refused instead.
 */
export function presetPrefers(mapping: MappingFile | undefined, normalized: (header: string) => string): ((a: string, b: string) => boolean) | undefined {
  if (!isBuiltInPreset(mapping)) return undefined;
  const order = new Map<string, number>();
  Object.keys(mapping!.columns).forEach((h, i) => order.set(normalized(h), i));
  return (a, b) => (order.get(normalized(a)) ?? Infinity) < (order.get(normalized(b)) ?? Infinity);
}
