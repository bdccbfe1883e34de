import { isAcmeName } from '../zone/names.js';
import { isRecordType, type RecordSet, type RecordType } from '../zone/record-set.js';
import { ZoneSets } from '../zone/zone-sets.js';
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

/** The record sets at a name, as a prerequisite sees them (the zone as read, or as earlier messages of a batch left it). */
export interface SetsByName {
  at(name: string): ReadonlyArray<{ readonly type: string; readonly values: readonly string[] }>;
}

/** §3.2: every prerequisite against the zone as it is; the first that fails decides the rcode (§3.2.5). */
export const checkPrerequisites = (zone: string, sets: SetsByName, prerequisites: readonly Prerequisite[]): UpdateOutcome | null => {
  const at = (name: string) => sets.at(name);
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
 * §3.4.1: what refuses the whole message before anything changes — a name outside the zone, a type we do
 * not serve, the service's apex SOA/NS, or an update the key's right (ACME-only) does not cover. Null: it may go.
 */
export const refusalOf = (zone: string, updates: readonly UpdateOperation[], access: 'full' | 'acme-only'): UpdateOutcome | null => {
  for (const u of updates) {
    if (!inZone(u.name, zone)) return fail('NOTZONE', `${u.name} is outside the zone ${zone}`);
    if (u.kind !== 'delete-name' && !isRecordType(u.type)) return fail('REFUSED', `record type ${u.type} is not supported`);
    if (u.kind !== 'delete-name' && (u.type === 'SOA' || isApexServiceSet(u.name, u.type, zone)))
      return fail('REFUSED', `the apex SOA and NS records are the service's`);
    if (access === 'acme-only' && (u.kind === 'delete-name' || u.type !== 'TXT' || !isAcmeName(u.name, zone)))
      return fail('REFUSED', `this key may change only TXT records at _acme-challenge names (dns.acme_challenge)`);
  }
  return null;
};

interface DraftSet {
  readonly name: string;
  readonly type: RecordType;
  ttl: number;
  values: string[];
}

const setKey = (name: string, type: string): string => `${name}\u0000${type}`;

/**
 * A working copy of a zone's record sets that UPDATE messages are applied to in turn (§3.4), each seeing
 * what the ones before it left (a batch of messages committed together), and the plan changes that take
 * the zone as read to the draft. Built on the zone's indexed sets (ZoneSets, kept between commits by the
 * zone service): a name is copied into the draft only when a message reads or writes it, so a message
 * costs as much as the names it touches, whatever the zone's size.
 */
export class ZoneDraft implements SetsByName {
  /** The names read or written so far: their sets as the draft has them (an empty map: none left). */
  private readonly byName = new Map<string, Map<string, DraftSet>>();
  private readonly touched = new Set<string>();
  private readonly base: ZoneSets;

  constructor(
    private readonly zone: string,
    sets: ZoneSets | readonly RecordSet[],
  ) {
    this.base = sets instanceof ZoneSets ? sets : ZoneSets.of(sets);
  }

  /** The name's sets in the draft, copied from the zone as read on first use. */
  private types(name: string): Map<string, DraftSet> {
    let types = this.byName.get(name);
    if (!types) {
      types = new Map();
      for (const s of this.base.names.get(name)?.values() ?? [])
        types.set(s.type, { name: s.name, type: s.type, ttl: s.ttl, values: [...s.values] });
      this.byName.set(name, types);
    }
    return types;
  }

  at(name: string): DraftSet[] {
    return [...this.types(name).values()];
  }

  private get(name: string, type: string): DraftSet | undefined {
    return this.types(name).get(type);
  }

  private put(s: DraftSet): void {
    this.types(s.name).set(s.type, s);
  }

  private remove(name: string, type: string): void {
    this.types(name).delete(type);
  }

  /**
   * §3.4.2: one message's updates, in order (refusalOf first: nothing here refuses). True when the draft
   * changed (§3.4.2: adding what is there or deleting what is not changes nothing).
   */
  apply(updates: readonly UpdateOperation[]): boolean {
    const before = new Map<string, { ttl: number; values: string[] } | null>();
    const note = (name: string, type: string) => {
      const k = setKey(name, type);
      if (before.has(k)) return;
      const s = this.get(name, type);
      before.set(k, s ? { ttl: s.ttl, values: [...s.values] } : null);
      this.touched.add(k);
    };
    for (const u of updates) {
      if (u.kind === 'delete-name') {
        for (const s of this.at(u.name)) {
          if (isApexServiceSet(s.name, s.type, this.zone)) continue;
          note(s.name, s.type);
          this.remove(s.name, s.type);
        }
        continue;
      }
      const type = u.type as RecordType;
      const canon = (v: string) => canonicalValue(type, v, this.zone);
      note(u.name, type);
      const s = this.get(u.name, type);
      if (u.kind === 'delete-rrset') this.remove(u.name, type);
      else if (u.kind === 'delete-value') {
        if (!s) continue;
        const gone = canon(u.value);
        s.values = s.values.filter((v) => canon(v) !== gone);
        if (s.values.length === 0) this.remove(u.name, type);
      } else if (!s) this.put({ name: u.name, type, ttl: u.ttl, values: [u.value] });
      // §3.4.2.2: CNAME replaces CNAME; a value already there is not added twice. The set takes the new TTL.
      else if (type === 'CNAME') this.put({ ...s, ttl: u.ttl, values: [u.value] });
      else {
        if (!s.values.some((v) => canon(v) === canon(u.value))) s.values.push(u.value);
        s.ttl = u.ttl;
      }
    }
    for (const [k, was] of before) {
      const [name, type] = k.split('\u0000') as [string, string];
      const now = this.get(name, type);
      if (!was !== !now) return true;
      if (was && now && (was.ttl !== now.ttl || !sameValues(was.values, now.values))) return true;
    }
    return false;
  }

  /** The plan changes that take the zone as read to the draft (only touched sets). */
  changes(): ChangeInput[] {
    const changes: ChangeInput[] = [];
    for (const k of this.touched) {
      const [name, type] = k.split('\u0000') as [string, RecordType];
      const was = this.base.get(name, type);
      const now = this.get(name, type);
      if (was && !now) changes.push({ action: 'delete', name, type, current: { ttl: was.ttl, values: [...was.values] } });
      else if (!was && now) changes.push({ action: 'create', name, type, ttl: now.ttl, values: [...now.values] });
      else if (was && now && (was.ttl !== now.ttl || !sameValues(was.values, now.values))) {
        changes.push({
          action: 'update',
          name,
          type,
          ttl: now.ttl,
          values: [...now.values],
          current: { ttl: was.ttl, values: [...was.values] },
        });
      }
    }
    return changes;
  }
}
