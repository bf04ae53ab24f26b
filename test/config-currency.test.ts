/** BUILDSYNC_CURRENCY (README, "Configuration"): the account's currency, an ISO 4217 code. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { configError } from './helpers/config-error.ts';

describe('BUILDSYNC_CURRENCY', () => {
  const cases: Array<[Record<string, string>, string | undefined, string, string, boolean]> = [
    [{}, undefined, 'USD', 'BUILDSYNC_CURRENCY', false],
    [{ BUILDSYNC_CURRENCY: '' }, undefined, 'USD', 'BUILDSYNC_CURRENCY', false],
    [{ BUILDSYNC_CURRENCY: 'EUR' }, undefined, 'EUR', 'BUILDSYNC_CURRENCY', true],
    [{ BUILDSYNC_CURRENCY: 'cad' }, undefined, 'CAD', 'BUILDSYNC_CURRENCY', true],
    [{ BUILDSYNC_ACME_CURRENCY: 'gbp' }, 'acme', 'GBP', 'BUILDSYNC_ACME_CURRENCY', true],
    // An account of its own never takes the default's currency: it has its own, or USD.
    [{ BUILDSYNC_CURRENCY: 'EUR' }, 'acme', 'USD', 'BUILDSYNC_ACME_CURRENCY', false],
  ];
  for (const [env, account, code, variable, set] of cases) {
    it(`${JSON.stringify(env)} for ${account ?? 'the default account'} gives ${code} from ${variable}`, () => {
      const { currency, currencyVariable, currencySet } = loadConfig({ env, account }).account;
      expect([currency, currencyVariable, currencySet]).toEqual([code, variable, set]);
    });
  }

  it('a value that is not a three-letter code is named, with what to write', () => {
    for (const [env, account, named] of [
      [{ BUILDSYNC_CURRENCY: 'US$' }, undefined, 'BUILDSYNC_CURRENCY="US$"'],
      [{ BUILDSYNC_CURRENCY: 'EURO' }, undefined, 'BUILDSYNC_CURRENCY="EURO"'],
      [{ BUILDSYNC_ACME_CURRENCY: '€' }, 'acme', 'BUILDSYNC_ACME_CURRENCY="€"'],
    ] as const) {
      const err = configError(() => loadConfig({ env, account }));
      expect(err.message).toBe(`${named}: write the account's currency as its three-letter ISO 4217 code, e.g. USD, EUR or CAD, or leave it unset for USD`);
    }
  });
});
