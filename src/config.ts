import * as z from 'zod';
import { parseEnv, readEnv, type Env } from './env.ts';
import { ConfigError } from './errors/index.ts';
import { KNOB_SHAPE } from './knobs.ts';
import { Secret } from './secret.ts';
import { DEFAULT_LIMITS, formatLimits, parseLimits, type Limits } from './throttle/index.ts';
import type { DateOrder } from './values/index.ts';

/**
 * Configuration of README, Configuration, in one place. Every default lives in `DEFAULTS`; every value
 * is checked once, at start-up, and a bad one is named with what to write instead.
 */
export const DEFAULTS = {
  /** @defaultValue `redis://127.0.0.1:6379` */
  redisUrl: 'redis://127.0.0.1:6379',
  /** The limits the real service publishes per API key, as written: `DEFAULT_LIMITS` (throttle/parse-limits.ts). */
  limits: formatLimits(DEFAULT_LIMITS),
  /** Requests in flight at once per worker process. @defaultValue 8 */
  concurrency: 8,
  /** @defaultValue info */
  logLevel: 'info',
  /** Prefix of every Redis key the tool writes (queues, ledger, budgets). @defaultValue buildsync */
  prefix: 'buildsync',
  /** The account used when no --account is given. */
  account: 'default',
  /**
   * Days the ledger remembers a created record (a re-run within them creates nothing twice);
   * `buildsync ledger prune` forgets older ones. @defaultValue 400
   */
  ledgerRetentionDays: 400,
  /** The account's currency when BUILDSYNC_CURRENCY is not set (ISO 4217). @defaultValue USD */
  currency: 'USD',
} as const;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface AccountConfig {
  /** `default`, or the NAME of `--account NAME` (upper-cased in variable names). */
  name: string;
  baseUrl: string | undefined;
  email: string | undefined;
  password: Secret | undefined;
  apiKey: Secret | undefined;
  limits: Limits;
  /** The BUILDSYNC_LIMITS text, for messages. */
  limitsText: string;
  /**
   * BUILDSYNC_EXPORT_DATABASE_URL (BUILDSYNC_<NAME>_EXPORT_DATABASE_URL for an account of its
   * own): the PostgreSQL of `export projects --to postgres`. A secret: it carries the password.
   * @defaultValue none
   */
  exportDatabaseUrl: Secret | undefined;
  /** The variable `exportDatabaseUrl` is read from, for messages. */
  exportDatabaseVariable: string;
  /**
   * BUILDSYNC_DATE_FORMAT (BUILDSYNC_<NAME>_DATE_FORMAT for an account of its own): how this
   * account's files write `03/02/2026` when a file itself does not prove it. Unset: such a file
   * stops and asks. @defaultValue none
   */
  dateFormat: DateOrder | undefined;
  /** The variable `dateFormat` is read from, for messages. */
  dateFormatVariable: string;
  /**
   * BUILDSYNC_CURRENCY (BUILDSYNC_<NAME>_CURRENCY for an account of its own): the account's
   * currency, an ISO 4217 code, upper-cased. Only stored and shown for now (`check`).
   * @defaultValue USD
   */
  currency: string;
  /** The variable `currency` is read from, for messages. */
  currencyVariable: string;
  /** Whether `currencyVariable` was set (false: `currency` is the default). */
  currencySet: boolean;
}

export interface AppConfig {
  redisUrl: string;
  /** REDIS_CLUSTER=1: REDIS_URL names one node of a Redis Cluster. @defaultValue false */
  redisCluster: boolean;
  prefix: string;
  concurrency: number;
  logLevel: (typeof LOG_LEVELS)[number];
  /** BUILDSYNC_LEDGER_RETENTION_DAYS: the default of `ledger prune --older-than`. */
  ledgerRetentionDays: number;
  /**
   * BUILDSYNC_NOTIFY_URL: receives a JSON POST when an export or import job fails after its last
   * attempt. A secret too (webhook URLs often carry their token): only its origin is ever printed.
   * @defaultValue none
   */
  notifyUrl: Secret | undefined;
  account: AccountConfig;
}

/** Credentials complete enough to call the service. */
export interface ServiceAccount extends AccountConfig {
  baseUrl: string;
  email: string;
  password: Secret;
  apiKey: Secret;
}

export { readEnv, type Env } from './env.ts';

/**
 * The process-wide variables of README, Configuration and the test knobs (knobs.ts, where each is read);
 * each message says what to write instead.
 */
const processSchema = z.object({
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'not a Redis URL; write e.g. redis://127.0.0.1:6379')
    .default(DEFAULTS.redisUrl),
  BUILDSYNC_CONCURRENCY: z.coerce
    .number({ error: 'not a number; write a whole number, e.g. BUILDSYNC_CONCURRENCY=8' })
    .int('must be a whole number, e.g. BUILDSYNC_CONCURRENCY=8')
    .min(1, 'must be at least 1')
    .max(256, 'must be at most 256')
    .default(DEFAULTS.concurrency),
  BUILDSYNC_PREFIX: z
    .string()
    // README, Configuration: no braces. On a Redis Cluster the tool adds the hash tags itself
    // (queue/names.ts); a brace of the user's would change which part of a key is hashed.
    .refine((v) => !/[{}]/.test(v), 'no braces: on a Redis Cluster (REDIS_CLUSTER=1) buildsync adds the hash tags itself; write the plain name, e.g. BUILDSYNC_PREFIX=buildsync')
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only, e.g. BUILDSYNC_PREFIX=buildsync')
    .default(DEFAULTS.prefix),
  REDIS_CLUSTER: z
    .enum(['1', '0'], { message: 'write REDIS_CLUSTER=1 when REDIS_URL names a node of a Redis Cluster, or leave it unset' })
    .default('0')
    .transform((v) => v === '1'),
  LOG_LEVEL: z
    .enum(LOG_LEVELS, { message: `not a level; use one of ${LOG_LEVELS.join(', ')}` })
    .default(DEFAULTS.logLevel),
  BUILDSYNC_LEDGER_RETENTION_DAYS: z.coerce
    .number({ error: 'not a number; write a whole number of days, e.g. BUILDSYNC_LEDGER_RETENTION_DAYS=400' })
    .int('must be a whole number of days, e.g. BUILDSYNC_LEDGER_RETENTION_DAYS=400')
    .min(1, 'must be at least 1 day')
    .max(36_500, 'must be at most 36500 days')
    .default(DEFAULTS.ledgerRetentionDays),
  BUILDSYNC_ALLOW_VOLATILE_REDIS: z
    .enum(['1', '0'], { message: 'write BUILDSYNC_ALLOW_VOLATILE_REDIS=1 to send even when Redis would lose the ledger in a crash (throwaway set-ups only), or leave it unset' })
    .default('0')
    .transform((v) => v === '1'),
  ...KNOB_SHAPE,
});

const accountName = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'an account name is letters, digits and _, starting with a letter (it becomes part of BUILDSYNC_<NAME>_EMAIL)');

/** Loads the configuration for one account. Throws ConfigError naming the bad variable. */
export function loadConfig(opts: { env?: Env; account?: string } = {}): AppConfig {
  const env = opts.env ?? readEnv();
  const name = opts.account ?? DEFAULTS.account;
  const nameCheck = accountName.safeParse(name);
  if (!nameCheck.success) throw new ConfigError(`--account ${JSON.stringify(name)}: ${nameCheck.error.issues[0]?.message}`);
  const v = (suffix: string) => {
    const key = name === DEFAULTS.account ? `BUILDSYNC_${suffix}` : `BUILDSYNC_${name.toUpperCase()}_${suffix}`;
    const value = env[key];
    return { key, value: value === undefined || value === '' ? undefined : value };
  };

  // Every variable checked at once, the test knobs too: a bad one stops the command before it starts.
  const parsed = parseEnv(processSchema, env, (key, value) => (key === 'REDIS_URL' ? redactRedis(value) : value));
  const {
    REDIS_URL: redisUrl,
    BUILDSYNC_CONCURRENCY: concurrency,
    LOG_LEVEL: logLevel,
    BUILDSYNC_PREFIX: prefix,
    REDIS_CLUSTER: redisCluster,
    BUILDSYNC_LEDGER_RETENTION_DAYS: ledgerRetentionDays,
  } = parsed;

  const base = v('BASE_URL');
  if (base.value !== undefined) checkBaseUrl(base.key, base.value);
  const email = v('EMAIL');
  const password = v('PASSWORD');
  const apiKey = v('API_KEY');
  const limitsVar = v('LIMITS');
  // An account of its own may set its own budget; otherwise the shared BUILDSYNC_LIMITS applies.
  const limitsText = limitsVar.value ?? env.BUILDSYNC_LIMITS ?? DEFAULTS.limits;
  const limitsKey = limitsVar.value !== undefined ? limitsVar.key : 'BUILDSYNC_LIMITS';
  // parseLimits names the variable in its ConfigError; it must be the one that was read.
  const limits: Limits = parseLimits(limitsText, limitsKey);
  // An account of its own writes into its own database; it never falls back to the default's.
  const exportDb = v('EXPORT_DATABASE_URL');
  if (exportDb.value !== undefined) checkSecretUrl(exportDb.key, exportDb.value, ['postgres:', 'postgresql:'], 'postgres://user:password@host:5432/database');

  // An account of its own says how its own files write dates; it never takes the default's order.
  const dateFormat = v('DATE_FORMAT');
  const order = dateFormat.value?.toUpperCase();
  if (order !== undefined && order !== 'YMD' && order !== 'MDY' && order !== 'DMY') {
    throw new ConfigError(`${dateFormat.key}=${JSON.stringify(dateFormat.value)}: write YMD, MDY or DMY (how this account's files write 03/02/2026), or leave it unset`);
  }
  // The same for the currency: an account of its own has its own, or the default USD.
  const currency = v('CURRENCY');
  const code = currency.value?.trim().toUpperCase();
  if (code !== undefined && !/^[A-Z]{3}$/.test(code)) {
    throw new ConfigError(`${currency.key}=${JSON.stringify(currency.value)}: write the account's currency as its three-letter ISO 4217 code, e.g. USD, EUR or CAD, or leave it unset for ${DEFAULTS.currency}`);
  }

  return {
    redisUrl,
    redisCluster,
    prefix,
    concurrency,
    logLevel,
    ledgerRetentionDays,
    notifyUrl: notifyUrl(env),
    account: {
      name,
      baseUrl: base.value?.replace(/\/+$/, ''),
      email: email.value,
      password: password.value === undefined ? undefined : new Secret(password.value),
      apiKey: apiKey.value === undefined ? undefined : new Secret(apiKey.value),
      limits,
      limitsText,
      exportDatabaseUrl: exportDb.value === undefined ? undefined : new Secret(exportDb.value),
      exportDatabaseVariable: exportDb.key,
      dateFormat: order,
      dateFormatVariable: dateFormat.key,
      currency: code ?? DEFAULTS.currency,
      currencyVariable: currency.key,
      currencySet: code !== undefined,
    },
  };
}

/**
 * The account with everything needed to call the service, or a ConfigError listing each missing
 * variable by name. `allowInsecureHttp` lifts the https rule for hosts other than loopback.
 */
export function requireService(account: AccountConfig, opts: { allowInsecureHttp?: boolean } = {}): ServiceAccount {
  const prefix = account.name === DEFAULTS.account ? 'BUILDSYNC_' : `BUILDSYNC_${account.name.toUpperCase()}_`;
  const missing: string[] = [];
  if (!account.baseUrl) missing.push(`${prefix}BASE_URL`);
  if (!account.email) missing.push(`${prefix}EMAIL`);
  if (!account.password) missing.push(`${prefix}PASSWORD`);
  if (!account.apiKey) missing.push(`${prefix}API_KEY`);
  if (missing.length) {
    const settle = `. Set ${missing.length > 1 ? 'them' : 'it'} in the environment or in .env (see .env.example).`;
    throw new ConfigError(
      account.name === DEFAULTS.account ? `missing ${missing.join(', ')}${settle}` : [`missing ${missing.join(', ')} for `, { kind: 'option', option: 'account', value: account.name }, settle],
    );
  }
  const url = new URL(account.baseUrl!);
  if (url.protocol === 'http:' && !isLoopback(url.hostname) && !opts.allowInsecureHttp) {
    throw new ConfigError(
      `${prefix}BASE_URL uses plain http:// for ${url.hostname}, which would send the password and API key unencrypted. Use https://, or pass --allow-insecure-http if you really mean it.`,
    );
  }
  return account as ServiceAccount;
}

/** BUILDSYNC_NOTIFY_URL, checked (README, Configuration); undefined when unset. */
export function notifyUrl(env: Env = readEnv()): Secret | undefined {
  const value = env.BUILDSYNC_NOTIFY_URL || undefined;
  if (value === undefined) return undefined;
  checkSecretUrl('BUILDSYNC_NOTIFY_URL', value, ['https:', 'http:'], 'https://hooks.example.com/buildsync');
  return new Secret(value);
}

/** A URL that may carry a password or token: checked, and named in errors without its value. */
function checkSecretUrl(key: string, value: string, protocols: string[], example: string): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !protocols.includes(url.protocol)) {
    throw new ConfigError(`${key} is not a ${protocols[0]!.replace(':', '')} URL (its value is not shown: it may hold a password); write e.g. ${example}`);
  }
}

function checkBaseUrl(key: string, value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${key}=${JSON.stringify(value)} is not a URL; write e.g. https://api.example.com`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(`${key}=${JSON.stringify(value)} must start with https:// (or http:// for a local sandbox)`);
  }
  if (url.username || url.password) {
    throw new ConfigError(`${key} must not carry credentials; use BUILDSYNC_EMAIL and BUILDSYNC_PASSWORD instead`);
  }
}

export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

function redactRedis(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/**
 * BUILDSYNC_ALLOW_VOLATILE_REDIS=1 (README, Configuration): send even when Redis would lose the ledger
 * in a crash. Read like every other variable (the environment over `.env`) and checked by the
 * same schema as `loadConfig`: a value other than 1 or 0 is named, not taken for "no".
 */
export function allowVolatileRedis(env: Env = readEnv()): boolean {
  return parseEnv(processSchema.pick({ BUILDSYNC_ALLOW_VOLATILE_REDIS: true }), env).BUILDSYNC_ALLOW_VOLATILE_REDIS;
}

/**
 * REDIS_CLUSTER=1 (README, Configuration): REDIS_URL names one node of a Redis Cluster. Read like every
 * other variable (the environment over `.env`) and checked by the same schema as `loadConfig`.
 */
export function redisClusterEnabled(env: Env = readEnv()): boolean {
  return parseEnv(processSchema.pick({ REDIS_CLUSTER: true }), env).REDIS_CLUSTER;
}
