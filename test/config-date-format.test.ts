/** BUILDSYNC_DATE_FORMAT (README, "Configuration"): the order of an account's files whose dates prove none. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { ConfigError } from '../src/errors/index.ts';

describe('BUILDSYNC_DATE_FORMAT', () => {
  const cases: Array<[Record<string, string>, string | undefined, 'YMD' | 'MDY' | 'DMY' | undefined, string]> = [
    [{}, undefined, undefined, 'BUILDSYNC_DATE_FORMAT'],
    [{ BUILDSYNC_DATE_FORMAT: '' }, undefined, undefined, 'BUILDSYNC_DATE_FORMAT'],
    [{ BUILDSYNC_DATE_FORMAT: 'DMY' }, undefined, 'DMY', 'BUILDSYNC_DATE_FORMAT'],
    [{ BUILDSYNC_DATE_FORMAT: 'mdy' }, undefined, 'MDY', 'BUILDSYNC_DATE_FORMAT'],
    [{ BUILDSYNC_ACME_DATE_FORMAT: 'YMD' }, 'acme', 'YMD', 'BUILDSYNC_ACME_DATE_FORMAT'],
    // An account of its own never takes the default's order: its files may be written otherwise.
    [{ BUILDSYNC_DATE_FORMAT: 'DMY' }, 'acme', undefined, 'BUILDSYNC_ACME_DATE_FORMAT'],
  ];
  for (const [env, account, order, variable] of cases) {
    it(`${JSON.stringify(env)} for ${account ?? 'the default account'} gives ${order ?? 'no order'} from ${variable}`, () => {
      const cfg = loadConfig({ env, account });
      expect([cfg.account.dateFormat, cfg.account.dateFormatVariable]).toEqual([order, variable]);
    });
  }

  it('a value other than YMD, MDY or DMY is named, with what to write', () => {
    expect(() => loadConfig({ env: { BUILDSYNC_ACME_DATE_FORMAT: 'DD/MM/YYYY' }, account: 'acme' })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { BUILDSYNC_ACME_DATE_FORMAT: 'DD/MM/YYYY' }, account: 'acme' })).toThrow(
      'BUILDSYNC_ACME_DATE_FORMAT="DD/MM/YYYY": write YMD, MDY or DMY (how this account\'s files write 03/02/2026), or leave it unset',
    );
  });
});
