/**
 * Raw DNS query packets for the differential suites (answer-cache.test.ts, udp-batch.test.ts): written
 * octet by octet so every header bit, the name's case and the OPT are the test's to choose, from a
 * seeded generator so that a failing packet can be replayed.
 */

import { prng } from '../../support/prng.js';

export { prng };

export interface Edns {
  payload: number;
  version: number;
  dnssecOk: boolean;
  options: Buffer;
}

/** A bare 12-octet header (RFC 1035 §4.1.1): id, flags word and the four section counts as given. */
export const header = (id: number, flags: number, qd: number, an = 0, ns = 0, ar = 0): Buffer => {
  const b = Buffer.alloc(12);
  b.writeUInt16BE(id, 0);
  b.writeUInt16BE(flags, 2);
  b.writeUInt16BE(qd, 4);
  b.writeUInt16BE(an, 6);
  b.writeUInt16BE(ns, 8);
  b.writeUInt16BE(ar, 10);
  return b;
};

/** A query written octet by octet, so that every header bit, the name's case and the OPT are ours to choose. */
export const packet = (o: {
  id: number;
  flags: number;
  name: string;
  qtype: number;
  qclass: number;
  edns?: Edns;
  trailing?: Buffer;
}): Buffer => {
  const parts: Buffer[] = [];
  const header = Buffer.alloc(12);
  header.writeUInt16BE(o.id, 0);
  header.writeUInt16BE(o.flags, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(o.edns ? 1 : 0, 10);
  parts.push(header);
  for (const label of o.name === '' ? [] : o.name.split('.')) {
    const b = Buffer.from(label, 'latin1');
    parts.push(Buffer.from([b.length]), b);
  }
  const tail = Buffer.alloc(5);
  tail.writeUInt16BE(o.qtype, 1);
  tail.writeUInt16BE(o.qclass, 3);
  parts.push(tail);
  if (o.edns) {
    const opt = Buffer.alloc(11);
    opt.writeUInt16BE(41, 1);
    opt.writeUInt16BE(o.edns.payload, 3);
    opt[6] = o.edns.version;
    opt.writeUInt16BE(o.edns.dnssecOk ? 0x8000 : 0, 7);
    opt.writeUInt16BE(o.edns.options.length, 9);
    parts.push(opt, o.edns.options);
  }
  if (o.trailing) parts.push(o.trailing);
  return Buffer.concat(parts);
};

export const option = (code: number, data: Buffer): Buffer => {
  const b = Buffer.alloc(4 + data.length);
  b.writeUInt16BE(code, 0);
  b.writeUInt16BE(data.length, 2);
  data.copy(b, 4);
  return b;
};

export const NAMES = [
  'example.test',
  'www.example.test',
  'mail.example.test',
  'long.example.test',
  '_sip._tcp.example.test',
  '_acme-challenge.example.test',
  'x.wild.example.test',
  'p.q.wild.example.test',
  'b.wild.example.test',
  'c.b.wild.example.test',
  'a.b.wild.example.test',
  '*.wild.example.test',
  'foo.alias.example.test',
  'c1.example.test',
  'loop1.example.test',
  'out.example.test',
  'dangling.example.test',
  'sub.example.test',
  'x.sub.example.test',
  'ns1.sub.example.test',
  'child.example.test',
  'www.child.example.test',
  'nope.child.example.test',
  'old.example.test',
  'www.old.example.test',
  'mail.old.example.test',
  'medium.example.test',
  'large.example.test',
  'big.example.test',
  'nope.example.test',
  'a.b.c.nope.example.test',
  'example.net',
  'www.example.net',
  '',
  'test',
  'odd\x00label.example.test',
  'dot.in\x2elabel.example.test',
  'back\\slash.example.test',
  'ÿhigh.example.test',
];
// 65 = HTTPS: its octets (0x00 0x41) must not be lowered like the name's.
export const TYPES = [1, 2, 5, 6, 15, 16, 28, 33, 39, 43, 65, 97, 99, 255, 257, 251, 252, 0, 41, 0xffff];
export const CLASSES = [1, 1, 1, 1, 3, 255, 254];

export const randomCase = (name: string, r: () => number): string =>
  [...name].map((c) => (r() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');

export const randomQuery = (r: () => number): Buffer => {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  // Mostly RD/CD variants; sometimes any header bit (AA, TC, Z, AD, opcodes, QR).
  const flags = r() < 0.8 ? (r() < 0.5 ? 0x0100 : 0) | (r() < 0.3 ? 0x0010 : 0) : Math.floor(r() * 0x10000);
  const ednsPick = r();
  const options = [
    Buffer.alloc(0),
    option(10, Buffer.from('0123456789abcdef', 'hex')),
    option(12, Buffer.alloc(5)),
    option(8, Buffer.from([0, 1, 24, 0, 192, 0, 2])),
    option(11, Buffer.alloc(0)),
    option(3, Buffer.alloc(0)),
  ];
  const edns: Edns | undefined =
    ednsPick < 0.35
      ? undefined
      : {
          payload: pick([0, 100, 512, 513, 700, 1231, 1232, 1233, 4096, 65535]),
          version: r() < 0.9 ? 0 : pick([1, 255]),
          dnssecOk: r() < 0.4,
          options: r() < 0.7 ? pick(options) : Buffer.concat([pick(options), pick(options)]),
        };
  return packet({
    id: Math.floor(r() * 0x10000),
    flags,
    name: randomCase(pick(NAMES), r),
    qtype: pick(TYPES),
    qclass: pick(CLASSES),
    ...(edns ? { edns } : {}),
    ...(r() < 0.05 ? { trailing: Buffer.from([0]) } : {}),
  });
};

export const mutate = (p: Buffer, r: () => number): Buffer => {
  const m = Buffer.from(p);
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) m[Math.floor(r() * m.length)] = Math.floor(r() * 256);
  return r() < 0.1 ? m.subarray(0, Math.floor(r() * m.length)) : m;
};
