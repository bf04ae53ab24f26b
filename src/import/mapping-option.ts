import { existsSync } from 'node:fs';
import { UsageError } from '../errors/index.ts';
import { loadMappingFile, presetMapping, PRESET_NAMES } from '../mapping/index.ts';
import type { PlanOptions } from './plan.ts';

/**
 * What `--mapping VALUE` means for an import of `kind`: a built-in preset (`quickbooks`, `xero`:
 * bill exports only) unless a file of that name exists, else a mapping file read and checked.
 */
export async function mappingOption(kind: 'estimates' | 'bills', value: string): Promise<PlanOptions['mapping']> {
  const preset = presetMapping(value);
  if (preset !== undefined && !existsSync(value)) {
    if (kind !== 'bills') throw new UsageError(`--mapping ${value} reads ${value} bill exports; it is for bill imports. Pass a mapping file (--mapping MAP.json) instead.`);
    return preset;
  }
  if (!existsSync(value) && !/\.json$/i.test(value) && !value.includes('/')) {
    throw new UsageError(`--mapping ${value}: no such file, and not a built-in mapping (${PRESET_NAMES.join(', ')}).`);
  }
  return loadMappingFile(value);
}
