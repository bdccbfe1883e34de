import { randomUUID } from 'node:crypto';
import dgram from 'node:dgram';
import { createInterface } from 'node:readline';
import dnsPacket from 'dns-packet';
import { signRequest, type TsigKey } from '../adapters/dns/tsig.js';
import { EDNS_OPT, tcpAsk } from '../test/dns/server/tools.js';

/**
 * The clients of `npm run bench:update` (bench/update.bench.ts), in their own process as real clients are:
 * sharing the server's event loop would make the clients' own work count as the server's, and Node reads
 * one new TCP connection's message per turn of a loop, so in-process TCP clients reach the server one at a
 * time. Reads its settings from BENCH_UPDATE_CLIENT (JSON: DNS port, API base, API secret, TSIG key, zone),
 * then one job per stdin line ({"way", "n", "clients", "prefix"}), answering each with one stdout line
 * ({"ms": [...], "wall"} or {"error"}).
 */
const settings = JSON.parse(process.env.BENCH_UPDATE_CLIENT ?? '{}') as {
  dnsPort: number;
  base: string;
  secret: string;
  tsig: { name: string; algorithm: TsigKey['algorithm']; secret: string };
  zone: string;
};
const { dnsPort, base, zone: ZONE } = settings;
const key: TsigKey = { name: settings.tsig.name, algorithm: settings.tsig.algorithm, secret: Buffer.from(settings.tsig.secret, 'base64') };
const auth = { authorization: `Bearer ${settings.secret}`, 'content-type': 'application/json' };
type Way = 'update-udp' | 'update-tcp' | 'acme-route' | 'plan-api';

const main = async () => {
  // One UDP socket for every UPDATE over UDP; answers matched by message ID.
  const udp = dgram.createSocket('udp4');
  const waiting = new Map<number, (m: Buffer) => void>();
  udp.on('message', (m: Buffer) => waiting.get(m.readUInt16BE(0))?.(m));
  await new Promise<void>((ok) => udp.bind(0, '127.0.0.1', () => ok()));
  let nextId = 0;
  const updateMessage = (label: string, value: string): { id: number; message: Buffer } => {
    const id = (nextId = (nextId + 1) & 0xffff);
    const msg = dnsPacket.encode({
      type: 'query',
      id,
      flags: 5 << 11, // opcode UPDATE
      questions: [{ name: ZONE, type: 'SOA', class: 'IN' }],
      authorities: [{ name: `_acme-challenge.${label}.${ZONE}`, type: 'TXT', ttl: 60, class: 'IN', data: [value] }],
      additionals: [EDNS_OPT], // a refusal then says why (EDE)
    });
    return { id, message: signRequest(msg, key, { now: Math.floor(Date.now() / 1000) }).message };
  };
  const rcodeOk = (m: Buffer, way: string): void => {
    const rcode = m.readUInt16BE(2) & 0xf;
    if (rcode === 0 && !(m.readUInt16BE(2) & 0x0200)) return;
    const opt = dnsPacket.decode(m).additionals?.find((a) => a.type === 'OPT') as
      { options?: { code: number; data?: Buffer }[] } | undefined;
    const ede = opt?.options
      ?.find((o) => o.code === 15)
      ?.data?.subarray(2)
      .toString('utf8');
    throw new Error(`${way}: rcode ${rcode}${m.readUInt16BE(2) & 0x0200 ? ' TC' : ''}${ede ? ` (${ede})` : ''}`);
  };
  const overUdp = (label: string, value: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const { id, message } = updateMessage(label, value);
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`update-udp: no answer to ${label} in 10 s`));
      }, 10_000);
      waiting.set(id, (m) => {
        clearTimeout(timer);
        waiting.delete(id);
        try {
          rcodeOk(m, 'update-udp');
          resolve();
        } catch (e) {
          reject(e as Error);
        }
      });
      udp.send(message, dnsPort, '127.0.0.1');
    });
  const overTcp = async (label: string, value: string): Promise<void> => {
    rcodeOk(await tcpAsk(dnsPort, updateMessage(label, value).message), 'update-tcp');
  };
  const post = async (path: string, body: unknown, want: number): Promise<any> => {
    const r = await fetch(base + path, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': randomUUID() },
      body: JSON.stringify(body),
    });
    const json = await r.json();
    if (r.status !== want) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(json)}`);
    return json;
  };
  const viaAcmeRoute = async (label: string, value: string): Promise<void> => {
    await post(`/v1/domains/${ZONE}/dns/acme-challenges`, { name: `_acme-challenge.${label}.${ZONE}`, value }, 201);
  };
  const viaPlan = async (label: string, value: string): Promise<void> => {
    const plan = await post(
      `/v1/domains/${ZONE}/dns/plans`,
      { changes: [{ action: 'create', name: `_acme-challenge.${label}.${ZONE}`, type: 'TXT', ttl: 60, values: [value] }] },
      201,
    );
    await post(`/v1/domains/${ZONE}/dns/plans/${plan.id}/apply`, {}, 200);
  };
  const op: Record<Way, (label: string, value: string) => Promise<void>> = {
    'update-udp': overUdp,
    'update-tcp': overTcp,
    'acme-route': viaAcmeRoute,
    'plan-api': viaPlan,
  };

  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const job = JSON.parse(line) as { way: Way; n: number; clients: number; prefix: string };
    try {
      const ms: number[] = [];
      let left = job.n;
      let seq = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: job.clients }, async () => {
          while (left > 0) {
            left--;
            const label = `${job.prefix}-${++seq}`;
            const t = performance.now();
            await op[job.way](label, `v${seq}`);
            ms.push(performance.now() - t);
          }
        }),
      );
      process.stdout.write(`${JSON.stringify({ ms, wall: performance.now() - t0 })}\n`);
    } catch (err) {
      process.stdout.write(`${JSON.stringify({ error: (err as Error).message })}\n`);
    }
  }
  udp.close();
};

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
