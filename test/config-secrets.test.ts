/**
 * README, Configuration: secrets never reach a log line, a report or an error message. `Secret` hides the
 * value on every accidental path out; the logger's redaction catches what is logged by field name.
 */
import { Writable } from 'node:stream';
import { format, inspect } from 'node:util';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { REDACT_PATHS } from '../src/log.ts';
import { Secret } from '../src/secret.ts';

const PASSWORD = 'hunter2-Pw9';
const KEY = 'key-Ab12-secret';

describe('Secret', () => {
  const s = new Secret(PASSWORD);

  it('reveal() is the only way to the value', () => {
    expect(s.reveal()).toBe(PASSWORD);
  });

  it.each([
    ['a template string', () => `${s}`],
    ['String()', () => String(s)],
    ['concatenation', () => 'pw=' + s],
    ['JSON.stringify', () => JSON.stringify({ password: s, nested: { list: [s] } })],
    ['util.inspect', () => inspect({ password: s }, { depth: 10, showHidden: true })],
    ['util.format %o', () => format('%o %s %j', { s }, s, { s })],
    ['Object.entries / keys', () => JSON.stringify([Object.keys(s), Object.entries(s), { ...s }])],
  ])('prints no value through %s', (_how, print) => {
    const text = print();
    expect(text).not.toContain(PASSWORD);
    expect(text).toMatch(/\*\*\*|\[\]|\{\}/);
  });

  it('a whole loaded config prints no secret', () => {
    const cfg = loadConfig({ env: { BUILDSYNC_PASSWORD: PASSWORD, BUILDSYNC_API_KEY: KEY, BUILDSYNC_EMAIL: 'me@example.com' } });
    for (const text of [JSON.stringify(cfg), inspect(cfg, { depth: 10 }), `${cfg.account.password} ${cfg.account.apiKey}`]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(KEY);
    }
    expect(JSON.stringify(cfg)).toContain('me@example.com');
  });
});

describe('the pino logger (src/log.ts redaction)', () => {
  function capture(): { log: pino.Logger; lines: () => Record<string, unknown>[]; text: () => string } {
    let out = '';
    const stream = new Writable({
      write(chunk, _enc, done) {
        out += String(chunk);
        done();
      },
    });
    // The same redaction as the process logger; a stream of our own instead of stderr.
    const log = pino({ level: 'trace', redact: { paths: REDACT_PATHS, censor: '***' } }, stream);
    return { log, text: () => out, lines: () => out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) };
  }

  it('blanks password, apiKey and authorization fields wherever the paths name them', () => {
    const { log, lines, text } = capture();
    log.info({ password: PASSWORD, apiKey: KEY, authorization: `Basic ${PASSWORD}` }, 'top level');
    log.info({ account: { email: 'me@example.com', password: PASSWORD, apiKey: KEY } }, 'one level down');
    log.info({ req: { headers: { authorization: `Basic ${PASSWORD}`, apikey: KEY, accept: 'application/json' } } }, 'request headers');
    log.info({ headers: { Authorization: `Basic ${PASSWORD}`, APIKey: KEY } }, 'header casing');
    log.info({ BUILDSYNC_PASSWORD: PASSWORD, BUILDSYNC_API_KEY: KEY }, 'environment variables');

    expect(text()).not.toContain(PASSWORD);
    expect(text()).not.toContain(KEY);
    const [top, down, req, casing] = lines();
    expect(top).toMatchObject({ password: '***', apiKey: '***', authorization: '***', msg: 'top level' });
    expect(down).toMatchObject({ account: { email: 'me@example.com', password: '***', apiKey: '***' } });
    expect(req).toMatchObject({ req: { headers: { authorization: '***', apikey: '***', accept: 'application/json' } } });
    expect(casing).toMatchObject({ headers: { Authorization: '***', APIKey: '***' } });
  });

  it('a Secret logged under any name prints as ***', () => {
    const { log, text, lines } = capture();
    const token = new Secret(KEY);
    log.info({ token, list: [token] }, `sending with ${token}`);
    expect(text()).not.toContain(KEY);
    expect(lines()[0]).toMatchObject({ token: '***', list: ['***'], msg: 'sending with ***' });
  });
});

describe('log scrubbing', () => {
  it('blanks secret-named keys at any depth, per-account names included', async () => {
    const { scrubSecrets } = await import('../src/log.ts');
    const out = scrubSecrets({ env: { BUILDSYNC_ACME_PASSWORD: 'hunter2', BUILDSYNC_ACME_API_KEY: 'k-123', BUILDSYNC_ACME_EMAIL: 'a@b.c' }, headers: { Authorization: 'Basic xyz' } });
    expect(JSON.stringify(out)).not.toMatch(/hunter2|k-123|Basic xyz/);
    expect(out).toMatchObject({ env: { BUILDSYNC_ACME_EMAIL: 'a@b.c' } });
  });
});
