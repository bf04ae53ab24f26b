import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csv, freeProjectIds, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { runCli } from './helpers/cli.ts';

// docs/operators.md, "Durability": without AOF or a replica (this machine's Redis keeps nothing on
// disk) an import refuses to send, exit 2, saying how to turn AOF on, unless the user says the
// set-up is throwaway.
let rig: E2eRig;
beforeAll(async () => {
  rig = await startE2eRig();
});
afterAll(() => rig?.close());

describe('a Redis that would lose the ledger', () => {
  it('is refused before anything is sent, with the fix; BUILDSYNC_ALLOW_VOLATILE_REDIS=1 lets the import through', async () => {
    const [project] = freeProjectIds(rig.sandbox);
    const file = rig.file('one.csv', csv(['project_id', 'estimate_name', 'category'], [[project!, 'Durable', 'General']]));
    const { BUILDSYNC_ALLOW_VOLATILE_REDIS: _allowed, ...strict } = rig.env;
    const refused = await runCli(['import', 'estimates', file], strict, { cwd: rig.dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/appendonly yes/);
    expect(refused.stderr).toMatch(/BUILDSYNC_ALLOW_VOLATILE_REDIS=1/);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    expect(rig.sandbox.requests().filter((r) => r.method === 'POST')).toHaveLength(0);

    const allowed = await runCli(['import', 'estimates', file], rig.env, { cwd: rig.dir });
    expect(allowed.code).toBe(0);
    expect(allowed.stderr).toMatch(/warning: .*BUILDSYNC_ALLOW_VOLATILE_REDIS/);
    expect(rig.sandbox.estimates().filter((e) => e.projectId === project)).toHaveLength(1);
  });
});
