import { inZone, type CompiledZone, type Part, type ZoneNode } from './compiled-zone.js';
import { canonicalCompare, canonicalLabels, RR } from './dnssec.js';
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
  | { kind: 'nxdomain'; encloser: ZoneNode }
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
      return wild ? { kind: 'node', node: wild, ownerWire: null } : { kind: 'nxdomain', encloser };
    }
    // The parent side of a cut answers DS itself (RFC 4035 §3.1.4.1): the DS, or NODATA with its NSEC.
    if (n.cut && !(j === 0 && qtype === T.DS)) return { kind: 'referral', cut: n };
    encloser = n;
  }
  return { kind: 'node', node: encloser, ownerWire: encloser.wire };
};

/** The NSEC record whose owner is `name` or, failing that, the one before it in canonical order: it covers the name. */
const nsecFor = (zone: CompiledZone, name: string): ZoneNode => {
  const chain = zone.dnssec!.chain;
  const key = canonicalLabels(name);
  let lo = 0;
  let hi = chain.nodes.length - 1;
  // The apex is first and precedes every name of the zone; find the last member <= name.
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (canonicalCompare(chain.labels[mid]!, key) <= 0) lo = mid;
    else hi = mid - 1;
  }
  return chain.nodes[lo]!;
};

/**
 * Answers `qname` (lower case, a name inside `zone`; `suffixes` = suffixesOf(qname)) for `qtype`.
 * CNAMEs and DNAMEs are followed while the target stays in this zone; the rcode is that of the last
 * name of the chain (RFC 6604). ANY gets one RRset (RFC 8482 §4.1). With `dnssec` (DO set, RFC 3225, on a
 * signed zone) every authoritative RRset comes with its RRSIGs, and the answer carries the NSEC records
 * that prove it (RFC 4035 §3.1.3): that a name does not exist and no wildcard could make it, that a type
 * is absent, that a wildcard answered a name that does not exist, that a delegation has no DS.
 */
export const resolve = (zone: CompiledZone, qname: string, suffixes: readonly string[], qtype: number, dnssec = false): Resolution => {
  const res: Resolution = { rcode: RCODE.NOERROR, aa: true, answer: [], authority: [], additional: [] };
  const signed = dnssec && zone.dnssec !== null;
  const proofs = new Set<ZoneNode>();
  const sigOf = (node: ZoneNode, type: number, owner: string, ownerWire: Buffer | null): Part | null => {
    const set = node.sigs?.get(type);
    return set && set.tails.length > 0 ? { owner, ownerWire, set } : null;
  };
  /** The NSEC of `node` and its RRSIG in the authority section, once per answer. */
  const prove = (node: ZoneNode): void => {
    if (proofs.has(node)) return;
    proofs.add(node);
    const nsec = node.sets.get(RR.NSEC);
    if (!nsec) return;
    res.authority.push({ owner: node.name, ownerWire: node.wire, set: nsec });
    const sig = sigOf(node, RR.NSEC, node.name, node.wire);
    if (sig) res.authority.push(sig);
  };
  const negative = (rcode: number): Resolution => {
    res.rcode = rcode;
    res.authority.unshift({ owner: zone.apex, ownerWire: zone.apexNode.wire, set: zone.negativeSoa });
    if (signed) res.authority.splice(1, 0, { owner: zone.apex, ownerWire: zone.apexNode.wire, set: zone.dnssec!.negativeSoaSig });
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
        if (signed) {
          // RFC 4035 §3.1.3.2: the name does not exist, nor does the wildcard at its closest encloser.
          prove(nsecFor(zone, name));
          prove(nsecFor(zone, `*.${found.encloser.name}`));
        }
        return negative(RCODE.NXDOMAIN);
      case 'referral':
        if (hop > 0) return res; // a chain that leaves our authority: the resolver goes on from here
        res.aa = false;
        res.authority.push(found.cut.glue[0]!);
        if (signed) {
          // RFC 4035 §3.1.4: the DS and its RRSIG, or the NSEC proving there is none (an insecure delegation).
          const ds = found.cut.sets.get(T.DS);
          if (ds) {
            res.authority.push({ owner: found.cut.name, ownerWire: found.cut.wire, set: ds });
            const sig = sigOf(found.cut, T.DS, found.cut.name, found.cut.wire);
            if (sig) res.authority.push(sig);
          } else prove(found.cut);
        }
        for (let i = 1; i < found.cut.glue.length; i++) res.additional.push(found.cut.glue[i]!);
        return res;
      case 'dname': {
        const d = found.node.sets.get(T.DNAME)!;
        res.answer.push({ owner: found.node.name, ownerWire: found.node.wire, set: d });
        if (signed) {
          const sig = sigOf(found.node, T.DNAME, found.node.name, found.node.wire);
          if (sig) res.answer.push(sig);
        }
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
        // A wildcard answered (RFC 4592): prove the query name itself does not exist (RFC 4035 §3.1.3.3).
        const wildcard = owner === null;
        if (signed && wildcard) prove(nsecFor(zone, name));
        if (node.order.length === 0) {
          if (signed) prove(nsecFor(zone, name)); // empty non-terminal: the NSEC before it covers it
          return negative(RCODE.NOERROR); // NODATA
        }
        const set = qtype === T.ANY ? node.order[0]! : node.sets.get(qtype);
        if (set) {
          res.answer.push({ owner: name, ownerWire: owner, set });
          if (signed && set.type !== RR.RRSIG) {
            const sig = sigOf(node, set.type, name, owner);
            if (sig) res.answer.push(sig);
          }
          // RFC 1035 §3.3.9, RFC 2782: addresses of in-zone NS, MX and SRV targets go in additional,
          // signed with their RRSIGs (RFC 4035 §3.1.1; message.ts drops an RRSIG that does not fit, or whose set did not).
          const extra = zone.additional.get(set);
          if (extra)
            for (const p of extra) {
              res.additional.push(p);
              const target = signed ? zone.nodes.get(p.owner) : undefined;
              const sig = target ? sigOf(target, p.set.type, p.owner, p.ownerWire) : null;
              if (sig) res.additional.push(sig);
            }
          return res;
        }
        const cname = node.sets.get(T.CNAME);
        if (!cname) {
          if (signed) prove(node); // RFC 4035 §3.1.3.1: the NSEC at the name shows the type is absent
          return negative(RCODE.NOERROR); // NODATA (RFC 2308 §2.2)
        }
        res.answer.push({ owner: name, ownerWire: owner, set: cname });
        if (signed) {
          const sig = sigOf(node, T.CNAME, name, owner);
          if (sig) res.answer.push(sig);
        }
        next = cname.targets![0]!;
        break;
      }
    }
    if (hop + 1 >= MAX_CHAIN || visited.has(next) || !inZone(next, zone.apex)) return res;
    name = next;
    sfx = suffixesOf(next);
  }
};
