import dnsPacket from 'dns-packet';
import { wireLength } from './names.js';
import type { RecordSet } from './record-set.js';
import type { ParsedValue } from './values.js';
import { parsedValues } from './values.js';
import { splitTxt, txtOctets } from '../types/text.js';

/** dns-packet's record codec (typed loosely: @types/dns-packet does not declare `answer`). */
const answerCodec = (dnsPacket as unknown as { answer: { encodingLength(a: unknown): number } }).answer;

/** Header (RFC 1035 §4.1.1). */
const HEADER = 12;
/** The OPT pseudo-record of an EDNS answer (RFC 6891 §6.1.2): root name, type, class, TTL, RDLENGTH 0. */
const OPT = 11;
/** A compression pointer to the question name (RFC 1035 §4.1.4), how our server writes answer owners. */
const OWNER_POINTER = 2;

const rdataOf = (set: RecordSet, parsed: readonly ParsedValue[]): Array<{ type: string; data: unknown }> =>
  parsed.map((p, i) => {
    const raw = set.values[i]!;
    const d = p.data;
    if (!d) return { type: 'TXT', data: splitTxt(raw).map(txtOctets) };
    switch (d.kind) {
      case 'address':
        return { type: set.type, data: d.address };
      case 'host':
        return { type: set.type, data: d.host || '.' };
      case 'mx':
        return { type: 'MX', data: { preference: d.preference, exchange: d.exchange || '.' } };
      case 'srv':
        return { type: 'SRV', data: { priority: d.priority, weight: d.weight, port: d.port, target: d.target || '.' } };
      case 'caa':
        return { type: 'CAA', data: { flags: d.flags, tag: d.tag, value: d.value } };
      case 'txt':
        // SPF (type 99) has TXT's RDATA format (RFC 7208 §3.1); dns-packet has no SPF codec.
        return { type: 'TXT', data: d.strings.map(txtOctets) };
      case 'soa':
        return {
          type: 'SOA',
          data: {
            mname: d.mname,
            rname: d.rname,
            serial: d.serial,
            refresh: d.refresh,
            retry: d.retry,
            expire: d.expire,
            minimum: d.minimum,
          },
        };
    }
  });

/**
 * Octets of an EDNS answer that carries this whole record set: header, question, each record (owner as a
 * pointer to the question, as our server writes it; type, class, TTL, RDLENGTH and RDATA encoded by
 * dns-packet) and the OPT record. RDATA names are not compressed (dns-packet does not compress them).
 */
export const answerSize = (set: RecordSet, origin: string, parsed: readonly ParsedValue[] = parsedValues(set, origin)): number => {
  let size = HEADER + wireLength(set.name) + 4 + OPT;
  for (const rr of rdataOf(set, parsed)) {
    // encodingLength with the root as owner is 1 (root) + 10 + RDATA; swap the root for a pointer.
    size += answerCodec.encodingLength({ name: '.', type: rr.type, class: 'IN', ttl: set.ttl, data: rr.data }) - 1 + OWNER_POINTER;
  }
  return size;
};

const sizes = new WeakMap<RecordSet, number>();

/**
 * The answer size when it may exceed `limit`, else null. A cheap upper bound first (each value's RDATA is at
 * most 4 octets per UTF-16 unit plus 24: UTF-8 and TXT length octets included), so only sets that can come near the limit are encoded with dns-packet.
 */
export const answerSizeOver = (set: RecordSet, parsed: (set: RecordSet) => readonly ParsedValue[], limit: number): number | null => {
  let bound = HEADER + wireLength(set.name) + 4 + OPT;
  for (const v of set.values) bound += OWNER_POINTER + 10 + 4 * v.length + 24;
  if (bound <= limit) return null;
  let n = sizes.get(set);
  if (n === undefined) sizes.set(set, (n = answerSize(set, '', parsed(set))));
  return n > limit ? n : null;
};
