import { Cluster, type ClusterOptions } from 'ioredis';
import { ConfigError, redactUrl } from '../errors/index.ts';

/**
 * A Redis Cluster's connection (REDIS_CLUSTER=1), apart from the key layout (`layout.ts`) that
 * every command's modules reach: this module loads ioredis, and only what opens a connection
 * (`connection.ts`, the tests' rigs) imports it.
 */

/** The node REDIS_URL names, as the cluster's seed. */
export function clusterSeed(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 6379) };
}

/**
 * A Redis Cluster from REDIS_URL: the URL's user, password and `rediss://` TLS apply to every
 * node (`redisOptions`), since the other nodes are learned from `CLUSTER SLOTS` and come without
 * them. BullMQ asks for `maxRetriesPerRequest: null` on the nodes' options of a worker's cluster
 * (it reads `redisOptions` of a `Cluster`) and `enableReadyCheck`, which makes a cluster ready
 * only once `CLUSTER INFO` says `cluster_state:ok`.
 */
export function newCluster(url: string, opts: ClusterConnectOptions): Cluster {
  return new Cluster([clusterSeed(url)], clusterOptions(url, opts));
}

export interface ClusterConnectOptions {
  /** The whole cluster's reconnection (`clusterRetryStrategy`): a delay, or null to give up. */
  retry: (attempt: number) => number | null;
  /** Each node's connect timeout. */
  connectTimeoutMs: number;
  /** Retries of a command while its slot moves or fails over, `retryDelay` apart. */
  maxRedirections: number;
  /** @defaultValue 300 */
  retryDelayMs?: number;
  /** Passed to every node (e.g. `enableReadyCheck: false` for the check's own connection). */
  nodeOptions?: ClusterOptions['redisOptions'];
  /** @defaultValue true */
  enableReadyCheck?: boolean;
}

function clusterOptions(url: string, opts: ClusterConnectOptions): ClusterOptions {
  const u = new URL(url);
  const tls = u.protocol === 'rediss:';
  const db = u.pathname.replace(/^\//, '');
  if (db !== '' && db !== '0') {
    throw new ConfigError(`REDIS_URL ${redactUrl(url)} names database ${db}, but a Redis Cluster has only database 0: remove "/${db}" from REDIS_URL`);
  }
  const redisOptions: ClusterOptions['redisOptions'] = {
    maxRetriesPerRequest: null,
    connectTimeout: opts.connectTimeoutMs,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    // Managed services announce their nodes by host name and sign certificates for those names:
    // TLS checks the name each node is reached by (servername defaults to that host).
    ...(tls ? { tls: {} } : {}),
    ...opts.nodeOptions,
  };
  return {
    redisOptions,
    lazyConnect: true,
    enableReadyCheck: opts.enableReadyCheck ?? true,
    enableOfflineQueue: true,
    clusterRetryStrategy: opts.retry,
    // While a master fails over (cluster-node-timeout, then an election: seconds), commands to its
    // slots fail with a closed connection or CLUSTERDOWN; ioredis retries them after these delays,
    // up to maxRedirections times, before it gives up.
    retryDelayOnFailover: opts.retryDelayMs ?? 300,
    retryDelayOnClusterDown: opts.retryDelayMs ?? 300,
    retryDelayOnTryAgain: opts.retryDelayMs ?? 300,
    maxRedirections: opts.maxRedirections,
    slotsRefreshTimeout: 2000,
    // With TLS, keep the host names the cluster announces: resolving them to addresses first
    // would make every certificate check fail (ioredis docs, "Special note: AWS ElastiCache
    // Clusters with TLS").
    ...(tls ? { dnsLookup: (address: string, callback: (err: null, address: string) => void) => callback(null, address) } : {}),
  };
}
