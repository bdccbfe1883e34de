import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { EmbeddedNameserver } from '../../../adapters/dns/embedded/index.js';
import { normalizeValue } from '../../../adapters/monitoring/dns/dns-probe.adapter.js';
import { DnsProbeAdapter } from '../../../adapters/monitoring/dns/index.js';
import { parseValue } from '../../../core/dns/zone/values.js';
import { formatZoneFile, parseZoneFile } from '../../../core/dns/zone/zone-file.js';
import type { RecordSet } from '../../../core/dns/zone/record-set.js';
import { exampleZone } from './fixtures.js';
import { freePort, kdig, knotSecondaryConf, requireTools, startServer, waitFor, runKnotd, type Knotd } from './tools.js';

const SERIAL = 2026112600;
const ZONE = 'example.test';

/** TXT values (API text) whose octets are easy to get wrong: split points, NUL, octets that are not UTF-8. */
const CASES: Record<string, string> = {
  cyrillic: 'ї'.repeat(300), // 600 octets: a byte split would cut a character at 255
  boundary: `${'x'.repeat(254)}é${'y'.repeat(10)}`, // the 2-octet é would straddle octet 255
  emoji: '😀'.repeat(70),
  nul: 'before\u0000after',
  raw: 'octets \udcff\udcfe\udc80 are not UTF-8', // \255 \254 \128 on the wire
  escapes: 'quote " backslash \\ tab\t end',
};

/** The API's text → our wire → AXFR → Knot (a secondary) → kdig's presentation → our zone-file import. */
describe('TXT data is octet-exact: API text → wire → AXFR → Knot → presentation → import, and the export', function () {
  this.timeout(60_000);
  let ns: EmbeddedNameserver;
  let port: number;
  let knotPort: number;
  let dir: string;
  let knotd: Knotd | undefined;
  const sets: RecordSet[] = Object.entries(CASES).map(([k, v]) => ({ name: `${k}.${ZONE}`, type: 'TXT', ttl: 300, values: [v] }));
  const zone = exampleZone(SERIAL, sets);

  before(async function () {
    requireTools(this, 'knotd', 'knotc', 'kdig');
    dir = await mkdtemp(join(tmpdir(), 'domivka-knot-txt-'));
    knotPort = await freePort();
    ({ ns, port } = await startServer([zone], { secondaries: [{ host: '127.0.0.1', port: knotPort }] }));
    const conf = join(dir, 'knot.conf');
    await writeFile(conf, knotSecondaryConf({ dir, knotPort, primaryPort: ns.address().port, zones: [ZONE] }));
    knotd = runKnotd(conf);
    const took = await waitFor(async () => (await kdig(knotPort, ZONE, 'SOA')).answer.length > 0, 20_000, 100);
    expect(took, `knotd never served the zone; its log:\n${knotd!.log()}`).to.not.equal(null);
  });

  after(async () => {
    await knotd?.stop();
    await ns?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** One TXT record's presentation (`"…" "…"`) read back by our zone-file parser. */
  const imported = (name: string, rdata: string): string => {
    const parsed = parseZoneFile(`${name} 300 IN TXT ${rdata}\n`, ZONE);
    expect(
      parsed.results.filter((r) => r.severity === 'error'),
      rdata,
    ).to.deep.equal([]);
    return parseValue('TXT', parsed.recordSets[0]!.values[0]!, ZONE).canonical;
  };

  for (const [k, v] of Object.entries(CASES)) {
    it(`${k}: Knot serves the same octets, split only between characters, and they import back to the same text`, async () => {
      const answer = (await kdig(knotPort, `${k}.${ZONE}`, 'TXT')).answer.filter((r) => r.type === 'TXT');
      expect(answer, knotd!.log()).to.have.length(1);
      const rdata = answer[0]!.data;
      expect(imported(k, rdata)).to.equal(v);
      // Each string on its own is whole characters (for text that is UTF-8 throughout).
      if (!/[\udc80-\udcff]/.test(v)) {
        for (const s of rdata.match(/"(?:[^"\\]|\\.)*"/g)!) expect(imported(k, s)).to.not.match(/[\udc80-\udcff]/);
      }
    });
  }

  it('the export of the same zone splits where the wire does and imports back to the same values', async () => {
    const file = formatZoneFile(zone);
    const back = parseZoneFile(file, ZONE);
    for (const [k, v] of Object.entries(CASES)) {
      const set = back.recordSets.find((s) => s.name === `${k}.${ZONE}` && s.type === 'TXT')!;
      expect(parseValue('TXT', set.values[0]!, ZONE).canonical, k).to.equal(v);
      const line = file.split('\n').find((l) => l.startsWith(`${k} `))!;
      const served = (await kdig(port, `${k}.${ZONE}`, 'TXT')).answer.find((r) => r.type === 'TXT')!.data;
      // kdig writes printable UTF-8 as \DDD too, so the strings' counts match exactly.
      expect(line.match(/"(?:[^"\\]|\\.)*"/g)!.length, k).to.equal(served.match(/"(?:[^"\\]|\\.)*"/g)!.length);
    }
  });

  it('the DNS monitor reads the TXT octets back as the same text (not Latin-1)', async () => {
    const probe = new DnsProbeAdapter({ own: { host: '127.0.0.1', port } });
    for (const k of ['cyrillic', 'emoji', 'raw', 'nul']) {
      const spec = { kind: 'dns' as const, name: `${k}.${ZONE}`, type: 'TXT' as const, expected: [CASES[k]!], nameservers: [] };
      const r = (await probe.check(spec, 3000)) as { ok: boolean; detail?: unknown };
      expect(r.ok, `${k}: ${JSON.stringify(r)}`).to.equal(true);
    }
    expect(normalizeValue('TXT', CASES.cyrillic!)).to.equal(CASES.cyrillic);
  });
});
