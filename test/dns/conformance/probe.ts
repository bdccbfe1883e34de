import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import dnsPacket from 'dns-packet';
import { freePort, kdig, knotSecondaryConf, rawUdp, rdata, runKnotd, waitFor } from '../server/tools.js';

/**
 * The conformance suite's tools: a real Knot secondary of our server, and raw DNS exchanges
 * (dns-packet encodes what it can; the malformed probes are patched by hand) sent to both, with a
 * summary of each reply holding the parts that must match: rcode, opcode, flags, section contents, the
 * OPT record and its options, and the size.
 */

export interface KnotSecondary {
  readonly port: number;
  readonly dir: string;
  log(): string;
  stop(): Promise<void>;
}

/**
 * knotd as a secondary of `primaryPort` for `zones` (Knot 3.2 config, FACTS.md), which also lets
 * 127.0.0.1 transfer from it (so both servers can be asked AXFR/IXFR) and names itself by NSID.
 */
export const startKnot = async (o: {
  primaryPort: number;
  zones: readonly string[];
  knotPort?: number;
  nsid?: string;
}): Promise<KnotSecondary> => {
  const dir = await mkdtemp(join(tmpdir(), 'domivka-conf-knot-'));
  const port = o.knotPort ?? (await freePort([o.primaryPort]));
  const conf = join(dir, 'knot.conf');
  await writeFile(
    conf,
    knotSecondaryConf({
      dir,
      knotPort: port,
      primaryPort: o.primaryPort,
      zones: o.zones,
      ...(o.nsid ? { nsid: o.nsid } : {}),
      transferToLocal: true,
    }),
  );
  const knotd = runKnotd(conf);
  const stop = async (): Promise<void> => {
    await knotd.stop();
    await rm(dir, { recursive: true, force: true });
  };
  return { port, dir, log: knotd.log, stop };
};

/** Knot's SOA serial for `zone`, or null while it serves none. */
export const serialAt = async (port: number, zone: string): Promise<number | null> => {
  const soa = rdata((await kdig(port, zone, 'SOA')).answer, 'SOA')[0];
  return soa ? Number(soa.split(/\s+/)[2]) : null;
};

/** Waits until the server on `port` serves `serial` of `zone`; the milliseconds it took, or null. */
export const waitForSerial = (port: number, zone: string, serial: number, timeoutMs = 20_000): Promise<number | null> =>
  waitFor(async () => (await serialAt(port, zone)) === serial, timeoutMs, 100);

/** One UDP exchange: the reply, or null after `waitMs`. */
export const udp = (port: number, packet: Buffer, waitMs = 2000): Promise<Buffer | null> => rawUdp(port, packet, waitMs);

/** One TCP exchange: every message that comes back before the server closes or `quietMs` of silence. */
export const tcp = (port: number, packet: Buffer, quietMs = 500): Promise<Buffer[]> =>
  new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    const out: Buffer[] = [];
    let pending = Buffer.alloc(0);
    let timer = setTimeout(() => c.destroy(), quietMs * 4);
    c.on('data', (d: Buffer) => {
      pending = Buffer.concat([pending, d]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        out.push(pending.subarray(2, 2 + pending.readUInt16BE(0)));
        pending = pending.subarray(2 + pending.readUInt16BE(0));
      }
      clearTimeout(timer);
      timer = setTimeout(() => c.destroy(), quietMs);
    });
    c.on('error', () => undefined);
    c.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    const frame = Buffer.alloc(2);
    frame.writeUInt16BE(packet.length);
    c.write(Buffer.concat([frame, packet]));
  });

export const OPT = (options: Array<{ code: number; data: Buffer }> = [], udpPayloadSize = 1232): dnsPacket.Answer =>
  ({ name: '.', type: 'OPT', udpPayloadSize, flags: 0, options }) as unknown as dnsPacket.Answer;

/** A query packet: one question, optional OPT, optional authority records, opcode. */
export const query = (
  name: string,
  type: string,
  o: {
    id?: number;
    klass?: string;
    edns?: boolean | Array<{ code: number; data: Buffer }>;
    authorities?: dnsPacket.Answer[];
    opcode?: number;
    rd?: boolean;
  } = {},
): Buffer => {
  const edns = o.edns ?? true;
  const packet = dnsPacket.encode({
    type: 'query',
    id: o.id ?? 4242,
    flags: ((o.opcode ?? 0) << 11) | (o.rd ? dnsPacket.RECURSION_DESIRED : 0),
    questions: [{ name, type: type as dnsPacket.RecordType, class: (o.klass ?? 'IN') as dnsPacket.RecordClass }],
    ...(o.authorities ? { authorities: o.authorities } : {}),
    ...(edns ? { additionals: [OPT(Array.isArray(edns) ? edns : [])] } : {}),
  });
  return packet;
};

export const soaRecord = (zone: string, serial: number): dnsPacket.Answer =>
  ({
    name: zone,
    type: 'SOA',
    ttl: 0,
    data: { mname: 'ns.invalid', rname: 'h.invalid', serial: serial >>> 0, refresh: 1, retry: 1, expire: 1, minimum: 1 },
  }) as dnsPacket.Answer;

const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED', 'YXDOMAIN', 'YXRRSET', 'NXRRSET', 'NOTAUTH', 'NOTZONE'];

/** What a reply is made of, in the terms both servers must agree on. */
export interface Summary {
  readonly rcode: string;
  readonly opcode: number;
  readonly qr: boolean;
  readonly aa: boolean;
  readonly tc: boolean;
  readonly questions: number;
  readonly answer: string[];
  readonly authority: string[];
  readonly additional: string[];
  /** null: no OPT record; else its option codes. */
  readonly opt: number[] | null;
  readonly optOptions: Array<{ code: number; data: string }>;
  readonly size: number;
}

const rrText = (r: dnsPacket.Answer): string => {
  const data = (r as { data?: unknown }).data;
  const text = Buffer.isBuffer(data)
    ? data.toString('hex')
    : Array.isArray(data)
      ? data.map((d) => (Buffer.isBuffer(d) ? d.toString() : String(d))).join(' ')
      : typeof data === 'object' && data !== null
        ? JSON.stringify(data, Object.keys(data).sort())
        : String(data);
  return `${r.name.toLowerCase()} ${(r as { ttl?: number }).ttl ?? ''} ${r.type} ${text.toLowerCase()}`;
};

/** Reads a reply; the rcode includes the OPT's extended bits. A reply dns-packet cannot read throws. */
export const summary = (m: Buffer): Summary => {
  const flags = m.readUInt16BE(2);
  const d = dnsPacket.decode(m);
  const optRr = (d.additionals ?? []).find((r) => r.type === 'OPT') as (dnsPacket.OptAnswer & { extendedRcode?: number }) | undefined;
  const rcode = (flags & 0xf) | ((optRr?.extendedRcode ?? 0) << 4);
  const options = (optRr?.options ?? []) as Array<{ code: number; data?: Buffer }>;
  return {
    rcode: RCODES[rcode] ?? String(rcode),
    opcode: (flags >> 11) & 0xf,
    qr: (flags & 0x8000) !== 0,
    aa: (flags & 0x0400) !== 0,
    tc: (flags & 0x0200) !== 0,
    questions: m.readUInt16BE(4),
    answer: (d.answers ?? []).map(rrText).sort(),
    authority: (d.authorities ?? []).map(rrText).sort(),
    additional: (d.additionals ?? [])
      .filter((r) => r.type !== 'OPT')
      .map(rrText)
      .sort(),
    opt: optRr ? options.map((o) => o.code) : null,
    optOptions: options.map((o) => ({ code: o.code, data: (o.data ?? Buffer.alloc(0)).toString('hex') })),
    size: m.length,
  };
};
