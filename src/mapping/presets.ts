/**
 * The built-in mappings (`--mapping quickbooks|xero`, README, import bills), by name. A preset names
 * alternative spellings (`Vendor` or `Supplier`, `*ContactName` or `ContactName`), so
 * `resolveColumns` allows its entries for headers a file does not have.
 */
import type { MappingFile } from './mapping-file.ts';
import { QUICKBOOKS_MAPPING } from './quickbooks.ts';
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
