import { expect } from 'chai';
import { zoneSigningOf, type DnssecKey, type DnssecState } from '../../core/dnssec/dnssec-state.js';
import { DEFAULT_DNSSEC_TIMINGS } from '../../core/dnssec/dnssec-timings.js';
import { advanceRollover, startRollover } from '../../core/dnssec/rollover.js';

/**
 * The rollover schedule's invariants, step by step, with the production timings (no test shortening):
 * whatever DS the parent may hold (or a cache may still hold) at a step, the zone validates with it.
 */
const key = (id: string, tag: number, algorithm: 13 | 15): DnssecKey => ({
  id,
  tag,
  algorithm,
  flags: 257,
  role: 'csk',
  state: 'active',
  publicKey: 'AAAA',
  sealedPrivateKey: 'sealed',
  ds: `${tag} ${algorithm} 2 ${'AB'.repeat(32)}`,
  createdAt: new Date(0),
});

const state = (): DnssecState => ({
  zoneId: 'z',
  domain: 'example.com.ua',
  algorithm: 13,
  status: 'secure',
  dsAtParent: true,
  windowStart: new Date(),
  enabledAt: new Date(0),
  keys: [key('old', 1111, 13)],
});

const T = DEFAULT_DNSSEC_TIMINGS;
const ZONE_TTL = 7200;

/** Walks a rollover to the end; for each step: the signing data, and the seconds it waits before the next. */
const walk = (kind: 'csk' | 'algorithm') => {
  const t0 = new Date('2027-01-01T00:00:00Z');
  let s = startRollover(state(), key('new', 2222, kind === 'csk' ? 13 : 15), kind, t0, T, ZONE_TTL);
  const out: Array<{ step: string; signing: ReturnType<typeof zoneSigningOf>; waitS: number }> = [];
  let now = t0;
  for (let i = 0; i < 10 && s.rollover; i++) {
    const waitS = (s.rollover.nextAt.getTime() - now.getTime()) / 1000;
    out.push({ step: s.rollover.step, signing: zoneSigningOf(s), waitS });
    now = s.rollover.nextAt;
    s = advanceRollover(s, now, T, ZONE_TTL);
  }
  out.push({ step: 'done', signing: zoneSigningOf(s), waitS: 0 });
  return out;
};

/** Which key tags a validator may trust through the parent's DS at this step (the old DS lingers in caches one step). */
const trusted = (step: string, kind: 'csk' | 'algorithm'): number[] => {
  const order =
    kind === 'csk'
      ? ['prepublish', 'double_sign', 'ds_replaced', 'old_unsigned', 'done']
      : ['new_signatures', 'new_dnskey', 'ds_replaced', 'old_dnskey_removed', 'done'];
  const i = order.indexOf(step);
  const swap = order.indexOf('ds_replaced');
  if (i < swap) return [1111];
  if (i === swap) return [1111, 2222]; // the new DS at the parent, the old one still in caches for its TTL
  return [2222];
};

for (const kind of ['csk', 'algorithm'] as const) {
  describe(`DNSSEC ${kind} rollover schedule (RFC 6781 §4.1; timings as in production)`, () => {
    const steps = walk(kind);

    it('every algorithm in the DNSKEY set signs every RRset (RFC 4035 §2.2)', () => {
      for (const { step, signing } of steps) {
        const published = new Set(signing.keys.filter((k) => k.published).map((k) => k.algorithm));
        const signingAlgs = new Set(signing.keys.filter((k) => k.signing).map((k) => k.algorithm));
        for (const a of published) expect(signingAlgs.has(a), `${step}: algorithm ${a} published but not signing`).to.equal(true);
      }
    });

    it('every key a DS may name at a step is published and signs the DNSKEY set', () => {
      for (const { step, signing } of steps) {
        for (const tag of trusted(step, kind)) {
          const k = signing.keys.find((x) => x.tag === tag);
          expect(k?.published && k.signing, `${step}: key ${tag} must be published and signing`).to.equal(true);
        }
      }
    });

    it('each step waits the TTL of what it replaced plus the propagation delay', () => {
      const wait = Object.fromEntries(steps.map((s) => [s.step, s.waitS]));
      expect(wait.ds_replaced).to.equal(T.dsTtlS + T.propagationS);
      if (kind === 'csk') {
        expect(wait.prepublish).to.equal(T.dnskeyTtlS + T.propagationS);
        expect(wait.old_unsigned).to.equal(ZONE_TTL + T.propagationS);
      } else {
        expect(wait.new_signatures, 'both signatures in every cache before the new DNSKEY').to.equal(ZONE_TTL + T.propagationS);
        expect(wait.old_dnskey_removed).to.equal(T.dnskeyTtlS + T.propagationS);
      }
    });

    it('CDS/CDNSKEY only name keys in the DNSKEY set; the old key is gone at the end', () => {
      for (const { step, signing } of steps) {
        if (!signing.cds) continue;
        for (const k of signing.keys.filter((x) => x.signing))
          expect(k.published, `${step}: CDS would name an unpublished key`).to.equal(true);
      }
      const last = steps[steps.length - 1]!.signing;
      expect(last.keys.map((k) => k.tag)).to.deep.equal([2222]);
      expect(last.cds).to.equal(false);
    });
  });
}
