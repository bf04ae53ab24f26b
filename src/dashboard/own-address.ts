import { hostname, networkInterfaces } from 'node:os';
import { isLoopback } from '../config.ts';
import { UsageError } from '../errors/index.ts';

/** The addresses the dashboard answers to, as the guard compares them (same-origin.ts). */
export interface OwnAddress {
  /** `host[:port]` as `URL.host` writes it (lower case, no default port). */
  hosts: ReadonlySet<string>;
  /** `scheme://host[:port]` as `URL.origin` writes it. */
  origins: ReadonlySet<string>;
  /** The address to name in a refusal: `--public-url` when given, else the bound address. */
  shown: string;
}

/**
 * `--public-url URL`: the address a reverse proxy serves the dashboard at. Only its scheme, host
 * and port count (the dashboard serves at the root of it); anything else is refused at start.
 */
export function parsePublicUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--public-url ${JSON.stringify(text)} is not a URL; write the address the proxy serves the dashboard at, e.g. --public-url https://buildsync.example.com`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`--public-url ${JSON.stringify(text)}: expected an https:// (or http://) address, e.g. --public-url https://buildsync.example.com`);
  }
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    throw new UsageError(`--public-url ${JSON.stringify(text)}: give the scheme, host and port only (the dashboard serves at the root of that address), e.g. --public-url ${url.origin}`);
  }
  return url;
}

/**
 * Once listening: the bound address and port; for loopback also `localhost`, 127.0.0.1 and [::1];
 * bound to every interface (0.0.0.0, ::), this machine's addresses and host name; and the host and
 * origin of `--public-url`.
 */
export function ownAddress(o: { host: string; address: string; family: string; port: number; publicUrl?: URL }): OwnAddress {
  const bound = o.family === 'IPv6' ? `[${o.address}]` : o.address;
  const names = [bound, o.host.includes(':') && !o.host.startsWith('[') ? `[${o.host}]` : o.host];
  if (isLoopback(o.host)) names.push('localhost', '127.0.0.1', '[::1]');
  if (o.host === '0.0.0.0' || o.host === '::') names.push(...interfaceNames());
  const hosts = new Set<string>();
  const origins = new Set<string>();
  for (const name of names) {
    const url = new URL(`http://${name}:${o.port}`);
    hosts.add(url.host);
    origins.add(url.origin);
  }
  if (o.publicUrl) {
    hosts.add(o.publicUrl.host);
    // A proxy may write the default port out (`Host: example.com:443`); the browser never does.
    if (o.publicUrl.port === '') hosts.add(`${o.publicUrl.host}:${o.publicUrl.protocol === 'https:' ? 443 : 80}`);
    origins.add(o.publicUrl.origin);
  }
  return { hosts, origins, shown: o.publicUrl?.origin ?? `http://${bound}:${o.port}` };
}

/** This machine's host name and the addresses of its interfaces. */
function interfaceNames(): string[] {
  const names = [hostname(), 'localhost'];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) names.push(a.family === 'IPv6' ? `[${a.address.replace(/%.*$/, '')}]` : a.address);
  }
  return names.filter((n) => {
    try {
      new URL(`http://${n}`);
      return true;
    } catch {
      return false;
    }
  });
}
