import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planEstimates } from '../src/import/index.ts';

// An amount written in another currency than the account's is never read as the account's
// (README, "Amounts the service cannot hold"): estimates carry no currency, like bills.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'buildsync-estimate-currency-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HEADER = 'project_id,estimate_name,category,subcategory,item,qty,unit_cost\r\n';

async function plan(name: string, cost: string, accountCurrency?: string) {
  const file = path.join(dir, name);
  await writeFile(file, `${HEADER}1042,Kitchen,Cabinets,Base,Oak,2,"${cost}"\r\n`);
  return planEstimates(file, accountCurrency === undefined ? {} : { accountCurrency });
}

describe('estimate amounts and the account currency', () => {
  it('refuses a euro amount in a USD account, naming both currencies; nothing is planned', async () => {
    const p = await plan('euro.csv', '€1,250.00', 'USD');
    expect(p.records).toHaveLength(0);
    expect(p.statics.map((s) => [s.line, s.status])).toEqual([[2, 'invalid']]);
    expect(p.statics[0]!.message).toMatch(/column unit_cost: "€1,250\.00" is in EUR, but this account's amounts are in USD \(BUILDSYNC_CURRENCY\)/);
  });

  it('refuses a dollar amount in a EUR account, and a pound amount in either', async () => {
    expect((await plan('dollar.csv', '$1,250.00', 'EUR')).statics[0]!.message).toMatch(/is in dollars, but this account's amounts are in EUR/);
    expect((await plan('pound.csv', '£12.00', 'EUR')).statics[0]!.message).toMatch(/is in GBP, but this account's amounts are in EUR/);
  });

  it("reads the account's own currency", async () => {
    const eur = await plan('own-euro.csv', '€1,250.00', 'EUR');
    expect(eur.statics).toEqual([]);
    expect(JSON.stringify(eur.records[0]!.payload)).toContain('"UNIT_COST":1250');
    const usd = await plan('own-dollar.csv', '$1,250.00', 'USD');
    expect(JSON.stringify(usd.records[0]!.payload)).toContain('"UNIT_COST":1250');
  });
});
