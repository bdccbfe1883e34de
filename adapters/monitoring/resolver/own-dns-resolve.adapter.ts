import { Resolver } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';

type Resolve = (
  hostname: string,
  options: LookupOptions & { all: true },
  cb: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * Resolves monitor targets through our own authoritative DNS server (the sandbox): sandbox domains exist
 * only there, not in the public DNS. Shaped like dns.lookup(…, {all: true}) so the SSRF guard's
 * connect-time lookup can wrap it (the guard then judges every address).
 */
export const ownDnsResolve = (own: { host: string; port: number }, timeoutMs = 2000): Resolve => {
  const host = own.host === '0.0.0.0' ? '127.0.0.1' : own.host === '::' ? '::1' : own.host;
  const server = host.includes(':') ? `[${host}]:${own.port}` : `${host}:${own.port}`;
  return (hostname, options, cb) => {
    const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
    resolver.setServers([server]);
    const want = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    Promise.all([
      want === 6 ? Promise.resolve([]) : resolver.resolve4(hostname).catch(() => [] as string[]),
      want === 4 ? Promise.resolve([]) : resolver.resolve6(hostname).catch(() => [] as string[]),
    ]).then(
      ([v4, v6]) => {
        const list: LookupAddress[] = [...v4.map((address) => ({ address, family: 4 })), ...v6.map((address) => ({ address, family: 6 }))];
        if (list.length === 0) {
          const e = Object.assign(new Error(`${hostname} has no address at our DNS server`), {
            code: 'ENOTFOUND',
            hostname,
          }) as NodeJS.ErrnoException;
          return cb(e, []);
        }
        cb(null, list);
      },
      (err: NodeJS.ErrnoException) => cb(err, []),
    );
  };
};
