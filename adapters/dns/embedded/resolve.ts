import { inZone, type CompiledZone, type Part, type ZoneNode } from './compiled-zone.js';
import { encodedSet, encodeTail, RCODE, T } from './wire.js';

/** What a query gets from a zone, before it is fitted into a message. */
export interface Resolution {
  rcode: number;
  /** Authoritative answer: everything but a referral (RFC 1034 §4.3.2). */
  aa: boolean;
  answer: Part[];
  authority: Part[];
  additional: Part[];
  /** An Extended DNS Error code for the OPT record (RFC 8914). */
  ede?: number;
}

/** Bound on CNAME/DNAME hops followed inside a zone; a loop stops earlier, at the first repeated name. */
const MAX_CHAIN = 12;

/** Suffixes of a name, longest first: "a.b.c" → ["a.b.c", "b.c", "c"]. */
export const suffixesOf = (name: string): string[] => {
  const out = [name];
  for (let i = name.indexOf('.'); i !== -1; i = name.indexOf('.', i + 1)) out.push(name.slice(i + 1));
  return out;
};

type Found =
  | { kind: 'node'; node: ZoneNode; ownerWire: Buffer | null }
  | { kind: 'nxdomain' }
  | { kind: 'referral'; cut: ZoneNode }
  | { kind: 'dname'; node: ZoneNode };

/**
 * RFC 1034 §4.3.2 step 3 inside one zone: walk down from the apex one label at a time (one map lookup
 * each), stopping at a zone cut (referral), at a DNAME above the name (RFC 6672), or where the name
 * leaves the tree — then the wildcard at the closest encloser answers, if there is one (RFC 4592
 * §3.3.1: an empty non-terminal is an encloser too, so it shields the names below it).
 */
const find = (zone: CompiledZone, sfx: readonly string[], qtype: number): Found => {
  let encloser = zone.apexNode;
  for (let j = sfx.length - zone.labels - 1; j >= 0; j--) {
    if (encloser.sets.has(T.DNAME)) return { kind: 'dname', node: encloser };
    const n = zone.nodes.get(sfx[j]!);
    if (!n) {
      const wild = zone.nodes.get(`*.${encloser.name}`);
      return wild ? { kind: 'node', node: wild, ownerWire: null } : { kind: 'nxdomain' };
    }
    // The parent side of a cut answers DS itself (RFC 4035 §3.1.4.1); we hold none: NODATA.
    if (n.cut && !(j === 0 && qtype === T.DS)) return { kind: 'referral', cut: n };
    encloser = n;
  }
  return { kind: 'node', node: encloser, ownerWire: encloser.wire };
};

/**
 * Answers `qname` (lower case, a name inside `zone`; `suffixes` = suffixesOf(qname)) for `qtype`.
 * CNAMEs and DNAMEs are followed while the target stays in this zone; the rcode is that of the last
 * name of the chain (RFC 6604). ANY gets one RRset (RFC 8482 §4.1).
 */
export const resolve = (zone: CompiledZone, qname: string, suffixes: readonly string[], qtype: number): Resolution => {
  const res: Resolution = { rcode: RCODE.NOERROR, aa: true, answer: [], authority: [], additional: [] };
  const negative = (rcode: number): Resolution => {
    res.rcode = rcode;
    res.authority.push({ owner: zone.apex, ownerWire: zone.apexNode.wire, set: zone.negativeSoa });
    return res;
  };
  const visited = new Set<string>();
  let name = qname;
  let sfx = suffixes;
  for (let hop = 0; ; hop++) {
    visited.add(name);
    const found = find(zone, sfx, qtype);
    let next: string | undefined;
    switch (found.kind) {
      case 'nxdomain':
        return negative(RCODE.NXDOMAIN);
      case 'referral':
        if (hop > 0) return res; // a chain that leaves our authority: the resolver goes on from here
        res.aa = false;
        res.authority.push(found.cut.glue[0]!);
        for (let i = 1; i < found.cut.glue.length; i++) res.additional.push(found.cut.glue[i]!);
        return res;
      case 'dname': {
        const d = found.node.sets.get(T.DNAME)!;
        res.answer.push({ owner: found.node.name, ownerWire: found.node.wire, set: d });
        const prefix = name.slice(0, name.length - found.node.name.length - 1);
        const target = d.targets![0]!;
        const synthesized = target === '' ? prefix : `${prefix}.${target}`;
        if (Buffer.byteLength(synthesized) + 2 > 255) {
          res.rcode = RCODE.YXDOMAIN; // RFC 6672 §2.2: the substituted name would be too long
          return res;
        }
        if (synthesized.includes('\\')) return res; // an odd query label: let the resolver synthesize
        const cname = encodedSet(
          T.CNAME,
          d.ttl,
          [encodeTail({ name: '.', type: 'CNAME', ttl: d.ttl, data: synthesized || '.' })],
          [synthesized],
        );
        res.answer.push({ owner: name, ownerWire: null, set: cname });
        next = synthesized;
        break;
      }
      case 'node': {
        const { node } = found;
        const owner = found.ownerWire;
        if (node.order.length === 0) return negative(RCODE.NOERROR); // empty non-terminal: NODATA
        const set = qtype === T.ANY ? node.order[0]! : node.sets.get(qtype);
        if (set) {
          res.answer.push({ owner: name, ownerWire: owner, set });
          // RFC 1035 §3.3.9, RFC 2782: addresses of in-zone NS, MX and SRV targets go in additional.
          const extra = zone.additional.get(set);
          if (extra) for (const p of extra) res.additional.push(p);
          return res;
        }
        const cname = node.sets.get(T.CNAME);
        if (!cname) return negative(RCODE.NOERROR); // NODATA (RFC 2308 §2.2)
        res.answer.push({ owner: name, ownerWire: owner, set: cname });
        next = cname.targets![0]!;
        break;
      }
    }
    if (hop + 1 >= MAX_CHAIN || visited.has(next) || !inZone(next, zone.apex)) return res;
    name = next;
    sfx = suffixesOf(next);
  }
};
