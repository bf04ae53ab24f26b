/**
 * Issue 17: BUILDSYNC_EXPORT_DATABASE_URL (per account BUILDSYNC_<NAME>_EXPORT_DATABASE_URL) and
 * BUILDSYNC_NOTIFY_URL are secrets: read per account, checked at start-up, never printed.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { ConfigError } from '../src/errors/index.ts';

const env = (extra: Record<string, string>) => ({ BUILDSYNC_BASE_URL: 'https://api.example.com', ...extra });

describe('export database and notify URL configuration', () => {
  it('reads the account\'s own database URL, without falling back to the default account\'s', () => {
    const e = env({
      BUILDSYNC_EXPORT_DATABASE_URL: 'postgres://etl:default-pw@db/warehouse',
      BUILDSYNC_ACME_EXPORT_DATABASE_URL: 'postgresql://etl:acme-pw@db/acme',
    });
    expect(loadConfig({ env: e }).account.exportDatabaseUrl?.reveal()).toBe('postgres://etl:default-pw@db/warehouse');
    const acme = loadConfig({ env: e, account: 'acme' }).account;
    expect(acme.exportDatabaseUrl?.reveal()).toBe('postgresql://etl:acme-pw@db/acme');
    expect(acme.exportDatabaseVariable).toBe('BUILDSYNC_ACME_EXPORT_DATABASE_URL');
    const other = loadConfig({ env: e, account: 'other' }).account;
    expect(other.exportDatabaseUrl).toBeUndefined();
    expect(other.exportDatabaseVariable).toBe('BUILDSYNC_OTHER_EXPORT_DATABASE_URL');
  });

  it('never prints the URLs, not even in the configuration object or an error about them', () => {
    const cfg = loadConfig({ env: env({ BUILDSYNC_EXPORT_DATABASE_URL: 'postgres://etl:s3cret-pw@db/w', BUILDSYNC_NOTIFY_URL: 'https://hooks.example.com/T0k3n' }) });
    const shown = `${JSON.stringify(cfg)} ${inspect(cfg, { depth: 5 })}`;
    expect(shown).not.toContain('s3cret-pw');
    expect(shown).not.toContain('T0k3n');
    expect(cfg.notifyUrl?.reveal()).toBe('https://hooks.example.com/T0k3n');

    let err: unknown;
    try {
      loadConfig({ env: env({ BUILDSYNC_EXPORT_DATABASE_URL: 'mysql://etl:s3cret-pw@db/w' }) });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('BUILDSYNC_EXPORT_DATABASE_URL is not a postgres URL');
    expect((err as Error).message).not.toContain('s3cret-pw');
    expect(() => loadConfig({ env: env({ BUILDSYNC_NOTIFY_URL: 'not a url T0k3n' }) })).toThrow(/BUILDSYNC_NOTIFY_URL is not a https URL(?!.*T0k3n)/);
  });
});
