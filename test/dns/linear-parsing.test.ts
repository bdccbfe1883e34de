import { expect } from 'chai';
import { AcmeChallenges } from '../../core/dns/acme/acme-challenges.use-case.js';
import { buildPlan } from '../../core/dns/plans/plan-builder.js';
import { parseCaa } from '../../core/dns/types/caa.js';
import { scanSteps } from '../../core/dns/types/scan.js';
import { parseTxt } from '../../core/dns/types/txt.js';
import { octetsText, quoteString, splitTxt, txtOctets, unescapeString } from '../../core/dns/types/text.js';
import { nameProblems, resolveName, storableName } from '../../core/dns/zone/names.js';
import { RECORD_TYPES } from '../../core/dns/zone/record-set.js';
import { parseValue } from '../../core/dns/zone/values.js';
import { formatZoneFile, parseZoneFile } from '../../core/dns/zone/zone-file.js';
import { encodeValue } from '../../adapters/dns/embedded/rdata.js';
import { normalizeValue } from '../../adapters/monitoring/dns/dns-probe.adapter.js';
import { apex, ORIGIN } from './zone-fixtures.js';

/**
 * Every DNS validator and parser runs in time linear in its input, measured without a clock: hand-written
 * scanners count the characters they visit (scanSteps), and every regular expression call is counted and
 * named. A regular expression may meet a long input only if it is on the list below, each entry linear by
 * construction (no two quantifiers that can take the same character, or a bounded repetition); a new one
 * fails this test until it is written as a scanner or argued onto the list. The total operation count for
 * an input of 2n characters must stay within about twice that for n.
 */
const LINEAR_REGEXES = new Set<string>([
  // one character class, no nesting: one step per character
  '^[\\x00-\\x7f]*$',
  '\\s',
  '\\s+',
  '[a-z0-9_*\\/.\\s-]',
  '^\\d+$',
  '^[A-Za-z0-9]+$',
  '^\\d{1,10}$',
  // classes that exclude the separator between them: each character has one place to go
  '^[a-z0-9_*/-]{1,63}(?:\\.[a-z0-9_*/-]{1,63})*$',
  '^[a-z0-9_*\\/-]{1,63}(?:\\.[a-z0-9_*\\/-]{1,63})*$',
  '(?<!\\\\)\\.',
  '\\\\\\.',
  '\\.$',
  '^\\d{1,3}(?:\\.\\d{1,3}){3}$',
  '^(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(?:\\.(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}$',
  '^(\\d+[wdhms])+$',
  '^"(.*)"$',
  '^(\\d+) (\\S+) "?(.*?)"?$',
  '^v=spf1(?: |$)',
  '[a-z0-9_*/.\\s-]',
  '^[+\\-~?]',
  // anchored literals; a lazy class whose every extension checks only `\.?$`
  '^(include|a|mx|ptr|exists)(?:$|[:/])|^(redirect)=',
  '^(?:include:|redirect=)([^%\\s]+?)\\.?$',
]);

/** Characters per input: 10,000 in CI, 100,000 under `npm run test:hostile`; LINEAR_PARSING_FULL=1 adds every suffix. */
const N = Number(process.env.LINEAR_PARSING_CHARS ?? 10_000);
const FULL = process.env.LINEAR_PARSING_FULL === '1';

interface Count {
  steps: number;
  regexes: Set<string>;
}

/** Runs fn counting scanner steps and regular expression calls (1 + what each match consumed). */
const counted = (fn: () => unknown): Count => {
  const proto = RegExp.prototype as unknown as { exec: (this: RegExp, s: string) => RegExpExecArray | null };
  const exec = proto.exec;
  const out: Count = { steps: 0, regexes: new Set() };
  let regexSteps = 0;
  proto.exec = function (this: RegExp, s: string) {
    const r = exec.call(this, s);
    regexSteps += 1 + (r ? r[0].length : 0);
    if (String(s).length > 200) out.regexes.add(this.source);
    return r;
  };
  const before = scanSteps.n;
  try {
    try {
      fn();
    } catch {
      // refusals (RdataError and the like) are fine; only the work counts
    }
  } finally {
    proto.exec = exec;
  }
  out.steps = scanSteps.n - before + regexSteps;
  return out;
};

const RUNS = [' ', '.', '\\', '"', '@', 'a', 'a-', '\t', ';', '1', ' ;', 'a.', '\\"', '\\0', '-', ':', '\u00e9', '\udcff'];
const PREFIXES = ['', '"', '0 issue "', '0 iodef "mailto:', '0 iodef "http://', '0 issue "ca; ', '0 issue "a', '10 ', '0 0 0 ', 'v=spf1 '];
const SUFFIXES = ['', '"', ' x', '!'];

/** Pathological values: long runs of one character, in the frames the parsers look for. */
const inputs = (n: number): string[] => {
  const out: string[] = [];
  for (const run of RUNS) {
    const body = run.repeat(Math.ceil(n / run.length)).slice(0, n);
    PREFIXES.forEach((p, i) => {
      // One suffix per frame (rotating); every one with LINEAR_PARSING_FULL=1.
      for (const s of FULL ? SUFFIXES : [SUFFIXES[i % SUFFIXES.length]!]) out.push(p + body + s);
    });
  }
  return out;
};

const VALIDATORS: Array<[string, (v: string) => unknown]> = [
  ...RECORD_TYPES.map((t): [string, (v: string) => unknown] => [`parseValue ${t}`, (v) => parseValue(t, v, ORIGIN)]),
  ...RECORD_TYPES.filter((t) => t !== 'SOA').map((t): [string, (v: string) => unknown] => [
    `encodeValue ${t}`,
    (v) => encodeValue(t, 60, v),
  ]),
  // the type parsers themselves, below the 4096-character bound parseValue puts in front of them
  ['parseCaa', (v) => parseCaa(v)],
  ['parseTxt', (v) => parseTxt('TXT', v)],
  ['resolveName', (v) => resolveName(v, ORIGIN)],
  ['storableName', (v) => storableName(v, ORIGIN)],
  ['nameProblems', (v) => nameProblems(v)],
  ['challengeName', (v) => AcmeChallenges.challengeName(v, ORIGIN)],
  ['unescapeString', (v) => unescapeString(v)],
  ['quoteString', (v) => quoteString(v)],
  ['splitTxt', (v) => splitTxt(v)],
  ['txt octets', (v) => octetsText(txtOctets(v))],
  ['monitor TXT', (v) => normalizeValue('TXT', v)],
  ['monitor CAA', (v) => normalizeValue('CAA', v)],
  ['zone file CAA', (v) => parseZoneFile(`@ 300 IN CAA ${v}\n`, ORIGIN)],
  ['zone file TXT', (v) => parseZoneFile(`@ 300 IN TXT ${v}\n`, ORIGIN)],
  ['zone file MX', (v) => parseZoneFile(`@ 300 IN MX ${v}\n`, ORIGIN)],
  ['zone file owner', (v) => parseZoneFile(`${v} 300 IN A 192.0.2.1\n`, ORIGIN)],
  [
    'plan CAA',
    (v) => buildPlan({ origin: ORIGIN, current: apex(), input: { changes: [{ action: 'create', name: 'c', type: 'CAA', values: [v] }] } }),
  ],
  [
    'plan TXT',
    (v) => buildPlan({ origin: ORIGIN, current: apex(), input: { changes: [{ action: 'create', name: 't', type: 'TXT', values: [v] }] } }),
  ],
  [
    'export',
    (v) =>
      formatZoneFile({
        domain: ORIGIN,
        serial: 1,
        recordSets: [
          ...apex(),
          { name: `c.${ORIGIN}`, type: 'CAA', ttl: 60, values: [v] },
          { name: `t.${ORIGIN}`, type: 'TXT', ttl: 60, values: [v] },
        ],
      }),
  ],
];

describe(`DNS validators are linear on pathological input (${N} characters; an operation count, not a clock)`, function () {
  this.timeout(600_000);
  const small = inputs(N / 2);
  const large = inputs(N);

  for (const [what, fn] of VALIDATORS) {
    it(`${what}: only linear regular expressions meet long input, and 2× the input costs ≤ ~2× the operations`, () => {
      for (let k = 0; k < large.length; k++) {
        const a = counted(() => fn(small[k]!));
        const b = counted(() => fn(large[k]!));
        const label = `${what} on ${JSON.stringify(large[k]!.slice(0, 24))}… (${large[k]!.length} chars)`;
        for (const re of [...a.regexes, ...b.regexes])
          expect(LINEAR_REGEXES.has(re), `${label}: unlisted regular expression /${re}/`).to.equal(true);
        expect(b.steps, `${label}: ${b.steps} operations`).to.be.at.most(64 * large[k]!.length + 10_000);
        expect(b.steps, `${label}: ${a.steps} → ${b.steps} operations`).to.be.at.most(2.2 * a.steps + 2_000);
      }
    });
  }
});
