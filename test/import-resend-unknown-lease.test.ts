/**
 * `--resend-unknown` takes a lease per bill in the ledger (README, Reports): two imports of the
 * same file with `--resend-unknown` at once, against a service that answers 500 to every create
 * (so each resend is `unknown` again), resend each bill once between them, as the sandbox counts
 * its requests. The import that did not resend a bill says which one did.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csv, freeProjectIds, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';

const BILLS = 12;
let rig: E2eRig;
let file: string;
beforeAll(async () => {
  // Every create answered 500 before storing: the service may have it, as far as the tool knows.
  rig = await startE2eRig({ latencyMs: 30, faults: { failBeforeStore: 1, seed: 7 } });
  const projects = freeProjectIds(rig.sandbox);
  file = rig.file(
    'lease.csv',
    csv(
      ['bill_ref', 'project_id', 'vendor_id', 'title', 'notes', 'item_name', 'rate', 'qty'],
      Array.from({ length: BILLS }, (_, i) => [`L-${i + 1}`, projects[i % projects.length]!, 55, `Lease bill ${i + 1}`, `lease #${i + 1}`, 'Materials', `${10 + i}.50`, 1]),
    ),
  );
  await rig.workers({ concurrency: 2 });
});
afterAll(() => rig?.close());

/** Bill creates the sandbox received, per NOTES. */
function postsPerBill(): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rig.sandbox.requests()) {
    if (r.method !== 'POST' || !/^\/api\/Bills/i.test(r.path)) continue;
    const info = new URL(r.path, 'http://x.invalid').searchParams.get('Info');
    const notes = (JSON.parse(info!) as { NOTES: string }).NOTES;
    out.set(notes, (out.get(notes) ?? 0) + 1);
  }
  return out;
}

describe('two --resend-unknown imports at once', () => {
  it('resend each unknown bill once between them; the other reports it unknown or being sent, naming the import that resent it', async () => {
    const first = await rig.importFile('bills', file);
    expect(first.report.map((l) => l.status)).toEqual(Array(BILLS).fill('unknown'));
    expect([...postsPerBill().values()]).toEqual(Array(BILLS).fill(1));

    const [a, b] = await Promise.all([rig.importFile('bills', file, { resendUnknown: true }), rig.importFile('bills', file, { resendUnknown: true })]);

    // One first send and one resend per bill, whichever import made it.
    const posts = postsPerBill();
    expect(posts.size).toBe(BILLS);
    for (const [notes, n] of posts) expect(n, notes).toBe(2);
    for (const [i, la] of a.report.entries()) {
      const lb = b.report[i]!;
      // Both end unknown (the resend got a 500 too), or one was still sending it when the other looked.
      const resentBy = [la, lb].filter((l) => l.status === 'unknown' && /^the service answered 500/.test(l.message));
      expect(resentBy, `line ${la.line}: ${la.message} | ${lb.message}`).toHaveLength(1);
      const other = resentBy[0] === la ? { line: lb, resender: a.importId } : { line: la, resender: b.importId };
      expect(other.line.message).toMatch(
        new RegExp(`^(import ${other.resender} resent it with --resend-unknown moments ago and its outcome is unknown again|being sent by import ${other.resender} at this moment)`),
      );
    }
  });
});
