import { NodeDnssecCrypto } from '../adapters/crypto/node/index.js';
import { compileZone, compileZoneAsync } from '../adapters/dns/embedded/compiled-zone.js';
import { SignatureCache } from '../adapters/dns/embedded/dnssec.js';
import { EmbeddedNameserver } from '../adapters/dns/embedded/index.js';
import { SignPool } from '../adapters/dns/embedded/sign-pool.js';
import { signingWindow, type ZoneSigning } from '../core/dns/zone/zone-signing.js';
import type { RecordSet } from '../core/dns/zone/record-set.js';
import type { Zone } from '../core/dns/zone/zone.js';
import { CSK_FLAGS, dnskeyRdata, keyTag, type DnssecAlgorithm } from '../core/dnssec/dnskey.js';
import { apexSets, BENCH_SERIAL, benchSets } from './zone-gen.js';

/**
 * `npm run bench:dnssec [-- RECORD_SETS]`: signing a zone from scratch (algorithms 13 and 15), and the re-sign
 * after a one-record change (the signatures of unchanged RRsets are kept). Default 100 000 record sets.
 * Signing is the signer's (README "DNSSEC: one signer"): new signatures are made in bulk on worker threads
 * (sign-pool.ts). Each figure is the compile with signing, and — what signing adds — minus an unsigned
 * compile of the same zone measured just before.
 *
 * Then the publish of a one-record change (issues 22 and 24), unsigned and signed with algorithm 13:
 * EmbeddedNameserver.publish of the next version, which updates the compiled zone (incremental.ts), against
 * the reference measured in the same run — compiling the same version whole, as publish did before (signed:
 * with the signatures of the last compile kept, so only the changed RRsets are signed). Medians of
 * PUBLISH_RUNS (default 5) versions, each changing one A record (and the SOA serial); the record sets the
 * change does not touch are the same objects from version to version, as the store's next version shares them.
 */
const n = Number(process.argv[2] ?? 100_000);
const domain = 'bench-signed.example';
const crypto = new NodeDnssecCrypto();

const signing = (algorithm: DnssecAlgorithm): ZoneSigning => {
  const k = crypto.generate(algorithm);
  const tag = keyTag(dnskeyRdata(CSK_FLAGS, algorithm, k.publicKey));
  return {
    keys: [{ tag, algorithm, flags: CSK_FLAGS, publicKey: k.publicKey, sealedPrivateKey: k.privateKey, published: true, signing: true }],
    ...signingWindow(new Date()),
    cds: false,
  };
};

const sets = [...apexSets(domain, BENCH_SERIAL), ...benchSets(domain, n)];
const records = sets.reduce((r, s) => r + s.values.length, 0);
const skip = (reason: string): never => {
  throw new Error(reason);
};
const ms = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;

const pool = new SignPool();
let t0 = process.hrtime.bigint();
compileZone({ domain, serial: BENCH_SERIAL, recordSets: sets }, skip);
const unsigned = ms(t0);
console.log(`${sets.length} record sets (${records} records), unsigned compile: ${unsigned.toFixed(0)} ms; ${pool.size} signing threads`);

for (const algorithm of [13, 15] as const) {
  const s = signing(algorithm);
  const cache = new SignatureCache();
  const zone: Zone = { domain, serial: BENCH_SERIAL, recordSets: sets, signing: s };
  t0 = process.hrtime.bigint();
  const signed = await compileZoneAsync(zone, skip, { openKey: (x) => x, signatures: cache }, pool.sign);
  const full = ms(t0);
  const made = cache.made;
  // One record changed (and the SOA serial, as a plan's commit does).
  const changed = sets.map((r, i) =>
    i === 0
      ? { ...r, values: [r.values[0]!.replace(String(BENCH_SERIAL), String(BENCH_SERIAL + 1))] }
      : r.type === 'A' && r.name === `h1.${domain}`
        ? { ...r, values: ['192.0.2.55'] }
        : r,
  );
  const next: Zone = { ...zone, serial: BENCH_SERIAL + 1, recordSets: changed };
  t0 = process.hrtime.bigint();
  compileZone({ ...next, signing: undefined }, skip);
  const plain = ms(t0);
  t0 = process.hrtime.bigint();
  await compileZoneAsync(next, skip, { openKey: (x) => x, signatures: cache }, pool.sign);
  const again = ms(t0);
  console.log(
    `algorithm ${algorithm}: signed from scratch in ${full.toFixed(0)} ms (${made} signatures, ${signed.recordCount} records served); ` +
      `after a one-record change: ${again.toFixed(0)} ms, ${cache.made} signatures made, ` +
      `${Math.max(0, again - plain).toFixed(0)} ms more than the unsigned compile of it (${plain.toFixed(0)} ms)`,
  );
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const runs = Number(process.env.PUBLISH_RUNS ?? 5);
/** The version after `zone` with one A record changed, and the SOA serial. */
const nextVersion = (zone: Zone, k: number): Zone => {
  const serial = zone.serial + 1;
  const recordSets: RecordSet[] = zone.recordSets.map((r, i) =>
    i === 0
      ? { ...r, values: [r.values[0]!.replace(String(zone.serial), String(serial))] }
      : r.type === 'A' && r.name === `h${k}.${domain}`
        ? { ...r, values: [`192.0.2.${(k % 250) + 1}`] }
        : r,
  );
  return { ...zone, serial, recordSets };
};
for (const signed of [false, true]) {
  const s = signed ? signing(13) : undefined;
  const ns = new EmbeddedNameserver({
    host: '127.0.0.1',
    port: 0,
    axfrAllow: [],
    secondaries: [],
    openKey: (x) => x,
    bulkSigner: pool.sign,
  });
  let zone: Zone = { domain, serial: BENCH_SERIAL, recordSets: sets, ...(s ? { signing: s } : {}) };
  const cache = new SignatureCache();
  await ns.publish(zone);
  await compileZoneAsync(zone, skip, { openKey: (x) => x, signatures: cache }, pool.sign);
  const whole: number[] = [];
  const incremental: number[] = [];
  for (let k = 1; k <= runs; k++) {
    zone = nextVersion(zone, k * 7);
    t0 = process.hrtime.bigint();
    if (s) await compileZoneAsync(zone, skip, { openKey: (x) => x, signatures: cache }, pool.sign);
    else compileZone(zone, skip);
    whole.push(ms(t0));
    t0 = process.hrtime.bigint();
    await ns.publish(zone);
    incremental.push(ms(t0));
  }
  const built = ns.signatures.built;
  if (built.incremental !== runs) throw new Error(`publish compiled whole: ${JSON.stringify(built)}`);
  const [w, i] = [median(whole), median(incremental)];
  console.log(
    `publish of a one-record change, ${signed ? 'signed (algorithm 13)' : 'unsigned'}: ${i.toFixed(1)} ms ` +
      `(reference, the whole compile of the same version${signed ? ' re-signing only the change' : ''}: ${w.toFixed(0)} ms; ` +
      `${(w / i).toFixed(0)}× faster; medians of ${runs})`,
  );
  await ns.withdraw(domain);
}
await pool.close();
