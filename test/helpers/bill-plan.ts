import type { BillPayload } from '../../src/payloads/index.ts';
import type { ImportPlan } from '../../src/import/index.ts';

/**
 * A bill import of `count` one-item bills, built by hand as `planBills` would build it from a
 * file with `bill_ref` (the README): one record per bill, keyed by ref, project and vendor,
 * spread over the given projects (which must be visible to the importing sandbox user).
 */
export function billPlan(count: number, projectIds: readonly number[], opts: { tag?: string } = {}): ImportPlan<BillPayload> {
  const tag = opts.tag ?? 'B';
  const usable = projectIds.filter((id) => id > 0);
  if (usable.length === 0) throw new RangeError('billPlan: no project ids');
  const records = Array.from({ length: count }, (_, i) => {
    const ref = `${tag}-${i + 1}`;
    const project = usable[i % usable.length]!;
    const vendor = 100 + (i % 7);
    const payload: BillPayload = {
      PRJ_ID: project,
      VENDOR_ID: vendor,
      TITLE: `Bill ${ref}`,
      ITEMS: [{ NAME: `Item of ${ref}`, RATE: `${(i % 90) + 10}.50` }],
    };
    return {
      key: `bill:ref:${ref}|${project}|${vendor}`,
      label: `bill ${ref} / project ${project} / vendor ${vendor}`,
      lines: [i + 2],
      contentHash: `hash-${ref}`,
      payload,
    };
  });
  return { kind: 'bills', file: `${tag}.csv`, rows: count, records, statics: [] };
}

/** Ordinary projects (not My Documents, not templates) a user may put a bill on. */
export function billProjects(visibleIds: readonly number[], project: (id: number) => Record<string, unknown> | undefined): number[] {
  return visibleIds.filter((id) => {
    const p = project(id);
    return p !== undefined && p.NAME !== 'My Documents' && p.IS_TEMPLATE !== true;
  });
}
