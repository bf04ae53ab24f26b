import { keyText } from '../values/index.ts';

/**
 * How the ledger keys a record (README "Which rows are records"): as the mapping compares keys.
 * A bill's record key carries its bill_ref as first written in its file
 * (`bill:ref:INV-7|1042|55`); the ledger's field for it holds the ref's `keyText`
 * (`bill:ref:inv-7|1042|55`), so that a later file spelling `inv-7 ` or `Inv-7` finds the
 * bill created from `INV-7`. Other record keys (`estimate:project:1042`, `bill:row:<hash>#0`)
 * hold no text a person types, and are their own field.
 *
 * Ledgers written before this rule hold bill fields as first written. They are migrated
 * (`LEDGER_KEYS_VERSION`, ledger.ts `migrateRecordKeys`): each such entry is copied to its
 * field of today, and kept under its old one (two bills that now share a key stay on record).
 */
const BILL_REF = 'bill:ref:';
const TRAILING_IDS = /\|-?\d+\|-?\d+$/;

/** The ledger's field of `recordKey`. */
export function ledgerFieldOf(recordKey: string): string {
  if (!recordKey.startsWith(BILL_REF)) return recordKey;
  const rest = recordKey.slice(BILL_REF.length);
  // `<ref>|<project>|<vendor>`: the ref is folded on its own (its ends trimmed), the IDs kept.
  const ids = TRAILING_IDS.exec(rest);
  const key = ids === null ? keyText(rest) : keyText(rest.slice(0, ids.index)) + ids[0];
  return key === rest ? recordKey : BILL_REF + key;
}

/** The HSCAN pattern of the fields a migration looks at: only bills keyed by bill_ref carry typed text. */
export const MIGRATED_FIELDS = `${BILL_REF}*`;

/**
 * The way of keying of today, as the account's marker key (src/redis/layout.ts `ledgerKeysMarkerOf`)
 * holds it once every entry written before it has its field of today. Any other value (none, or
 * the token a `ledger import` of old entries leaves) makes the next claim migrate first.
 */
export const LEDGER_KEYS_VERSION = 'keytext-1';
