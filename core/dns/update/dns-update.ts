import { isAcmeName } from '../zone/names.js';
import { isRecordType, type RecordSet, type RecordType } from '../zone/record-set.js';
import { canonicalValue, sameValues } from '../zone/values.js';

/**
 * DNS UPDATE (RFC 2136) as the core sees it: the zone, the prerequisites (§2.4) and the updates (§2.5),
 * already read off the wire by the DNS adapter into presentation form. Names are absolute, lower case,
 * without the trailing dot; values are zone-file presentation text (TXT: the plain text), as in a plan.
 */
export type Prerequisite =
  /** §2.4.4: class ANY, type ANY — the name owns at least one RR. */
  | { readonly kind: 'name-in-use'; readonly name: string }
  /** §2.4.5: class NONE, type ANY — the name owns no RR. */
  | { readonly kind: 'name-not-in-use'; readonly name: string }
  /** §2.4.1: class ANY, type T — an RRset exists (value independent). */
  | { readonly kind: 'rrset-exists'; readonly name: string; readonly type: string }
  /** §2.4.3: class NONE, type T — no such RRset. */
  | { readonly kind: 'rrset-not-exists'; readonly name: string; readonly type: string }
  /** §2.4.2: class of the zone — the RRset holds exactly these values (value dependent). */
  | { readonly kind: 'rrset-equals'; readonly name: string; readonly type: string; readonly values: readonly string[] };

export type UpdateOperation =
  /** §2.5.1: add to an RRset (a value already there is ignored). */
  | { readonly kind: 'add'; readonly name: string; readonly type: string; readonly ttl: number; readonly value: string }
  /** §2.5.2: class ANY, type T — delete an RRset. */
  | { readonly kind: 'delete-rrset'; readonly name: string; readonly type: string }
  /** §2.5.3: class ANY, type ANY — delete every RRset of a name. */
  | { readonly kind: 'delete-name'; readonly name: string }
  /** §2.5.4: class NONE — delete one RR from an RRset. */
  | { readonly kind: 'delete-value'; readonly name: string; readonly type: string; readonly value: string };

export interface DnsUpdateRequest {
  readonly zone: string;
  readonly prerequisites: readonly Prerequisite[];
  readonly updates: readonly UpdateOperation[];
}

/** RFC 2136 §2.2 response codes (plus NOERROR, SERVFAIL and FORMERR of RFC 1035). */
export type UpdateRcode =
  'NOERROR' | 'FORMERR' | 'SERVFAIL' | 'NXDOMAIN' | 'REFUSED' | 'YXDOMAIN' | 'YXRRSET' | 'NXRRSET' | 'NOTAUTH' | 'NOTZONE';

export interface UpdateOutcome {
  readonly rcode: UpdateRcode;
  /** What an Extended DNS Error text (RFC 8914) says: the reason, in English, without secrets. */
  readonly reason: string;
  /** The zone's serial after a change, when one was committed. */
  readonly serial?: number;
}

/** A change in the plan's input form (DESIGN: Wire formats). */
export interface ChangeInput {
  readonly action: 'create' | 'update' | 'delete';
  readonly name: string;
  readonly type: RecordType;
  readonly ttl?: number;
  readonly values?: string[];
  readonly current?: { ttl: number; values: string[] };
}

const fail = (rcode: UpdateRcode, reason: string): UpdateOutcome => ({ rcode, reason });

const inZone = (name: string, zone: string): boolean => name === zone || name.endsWith(`.${zone}`);

/** §3.2: every prerequisite against the zone as it is; the first that fails decides the rcode (§3.2.5). */
export const checkPrerequisites = (
  zone: string,
  sets: readonly RecordSet[],
  prerequisites: readonly Prerequisite[],
): UpdateOutcome | null => {
  const at = (name: string) => sets.filter((s) => s.name === name);
  // §3.2.3: value-dependent prerequisites are gathered per RRset and compared whole.
  const wanted = new Map<string, { name: string; type: string; values: string[] }>();
  for (const p of prerequisites) {
    if (!inZone(p.name, zone)) return fail('NOTZONE', `${p.name} is outside the zone ${zone}`);
    switch (p.kind) {
      case 'name-in-use':
        if (at(p.name).length === 0) return fail('NXDOMAIN', `prerequisite failed: ${p.name} owns no records`);
        break;
      case 'name-not-in-use':
        if (at(p.name).length > 0) return fail('YXDOMAIN', `prerequisite failed: ${p.name} owns records`);
        break;
      case 'rrset-exists':
        if (!at(p.name).some((s) => s.type === p.type)) return fail('NXRRSET', `prerequisite failed: no ${p.type} records at ${p.name}`);
        break;
      case 'rrset-not-exists':
        if (at(p.name).some((s) => s.type === p.type)) return fail('YXRRSET', `prerequisite failed: ${p.type} records exist at ${p.name}`);
        break;
      case 'rrset-equals': {
        const k = `${p.name}\u0000${p.type}`;
        const w = wanted.get(k) ?? { name: p.name, type: p.type, values: [] };
        w.values.push(...p.values);
        wanted.set(k, w);
        break;
      }
    }
  }
  for (const w of wanted.values()) {
    const set = at(w.name).find((s) => s.type === w.type);
    const canon = (v: string) => (isRecordType(w.type) ? canonicalValue(w.type, v, zone) : v);
    if (!set || !sameValues([...new Set(set.values.map(canon))], [...new Set(w.values.map(canon))])) {
      return fail('NXRRSET', `prerequisite failed: the ${w.type} records at ${w.name} differ`);
    }
  }
  return null;
};

/** Types an UPDATE may touch: the zone's record types except the service's SOA (NS only below the apex). */
const isApexServiceSet = (name: string, type: string, zone: string): boolean => name === zone && (type === 'SOA' || type === 'NS');

/**
 * §3.4: the updates, applied in order to a copy of the zone's sets, turned into the plan changes that
 * take the zone there. An update the key may not make, or one of the service's sets, refuses the whole
 * message (§3.4.1 checks everything before changing anything).
 */
export const planUpdates = (
  zone: string,
  sets: readonly RecordSet[],
  updates: readonly UpdateOperation[],
  access: 'full' | 'acme-only',
): { readonly changes: ChangeInput[] } | UpdateOutcome => {
  for (const u of updates) {
    if (!inZone(u.name, zone)) return fail('NOTZONE', `${u.name} is outside the zone ${zone}`);
    if (u.kind !== 'delete-name' && !isRecordType(u.type)) return fail('REFUSED', `record type ${u.type} is not supported`);
    if (u.kind !== 'delete-name' && (u.type === 'SOA' || isApexServiceSet(u.name, u.type, zone)))
      return fail('REFUSED', `the apex SOA and NS records are the service's`);
    if (access === 'acme-only' && (u.kind === 'delete-name' || u.type !== 'TXT' || !isAcmeName(u.name, zone)))
      return fail('REFUSED', `this key may change only TXT records at _acme-challenge names (dns.acme_challenge)`);
  }
  const work = new Map<string, { name: string; type: RecordType; ttl: number; values: string[] }>();
  for (const s of sets) work.set(`${s.name}\u0000${s.type}`, { name: s.name, type: s.type, ttl: s.ttl, values: [...s.values] });
  for (const u of updates) {
    if (u.kind === 'delete-name') {
      for (const [k, s] of work) if (s.name === u.name && !isApexServiceSet(s.name, s.type, zone)) work.delete(k);
      continue;
    }
    const type = u.type as RecordType;
    const k = `${u.name}\u0000${type}`;
    const canon = (v: string) => canonicalValue(type, v, zone);
    if (u.kind === 'delete-rrset') work.delete(k);
    else if (u.kind === 'delete-value') {
      const s = work.get(k);
      if (!s) continue;
      const gone = canon(u.value);
      s.values = s.values.filter((v) => canon(v) !== gone);
      if (s.values.length === 0) work.delete(k);
    } else {
      const s = work.get(k);
      // §3.4.2.2: CNAME replaces CNAME; a value already there is not added twice. The set takes the new TTL.
      if (!s) work.set(k, { name: u.name, type, ttl: u.ttl, values: [u.value] });
      else if (type === 'CNAME') work.set(k, { ...s, ttl: u.ttl, values: [u.value] });
      else {
        if (!s.values.some((v) => canon(v) === canon(u.value))) s.values.push(u.value);
        s.ttl = u.ttl;
      }
    }
  }
  const changes: ChangeInput[] = [];
  const before = new Map(sets.map((s) => [`${s.name}\u0000${s.type}`, s]));
  for (const [k, s] of before) {
    const after = work.get(k);
    const current = { ttl: s.ttl, values: [...s.values] };
    if (!after) changes.push({ action: 'delete', name: s.name, type: s.type, current });
    else if (after.ttl !== s.ttl || !sameValues(after.values, s.values)) {
      changes.push({ action: 'update', name: s.name, type: s.type, ttl: after.ttl, values: after.values, current });
    }
  }
  for (const [k, s] of work)
    if (!before.has(k)) changes.push({ action: 'create', name: s.name, type: s.type, ttl: s.ttl, values: s.values });
  return { changes };
};
