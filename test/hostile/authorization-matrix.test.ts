import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Route } from '../../adapters/http/index.js';
import { ERROR_TABLE } from '../../adapters/http/error-table.js';
import type { Policy, Selection } from '../../core/access/policy.js';
import { RIGHT_NAMES, RIGHTS, type RightName } from '../../core/kernel/rights.js';
import { TEMPLATES } from '../../core/access/templates.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { expectErrorShape } from '../support/error-shape.js';
import { FastClient, mountedRoutes, plantKey, pool, rightSets, type Answer } from './support/harness.js';
import { sampleOf } from './support/samples.js';

/**
 * The authorization matrix, GENERATED from the route table the app mounts. Every route ×
 * every right (alone and in each template) × four selections × test/live × inside/outside the CIDR ×
 * valid/expired/revoked, plus a human session and no credentials. The expected answer is computed from
 * the route's declaration (access kind, right / rights resolver, domainParam, sandboxOnly, writes) and
 * an independent model of DESIGN's rules — never listed by hand.
 *
 * A keyed route whose right lies on a domain only its use case can name (a stored record's, the names of
 * a certificate, a plan's diff) declares `rightsOfRecord`; what that needs for the fixtures below must
 * appear in USE_CASE_RIGHTS (and a sample input when the schema alone cannot reach the check) —
 * otherwise the test FAILS naming it. Every other key route declares `right`, `rights` or `anyKey`.
 */

const TARGET = 'domivka-demo.dev'; // seeded, labels [prod]
const OTHER = 'domivka-blog.kyiv.ua'; // seeded, labels [blog]
const LABELS: Record<string, readonly string[]> = { [TARGET]: ['prod'], [OTHER]: ['blog'], 'domivka-demo.com.ua': ['prod', 'shop'] };
/** npm test runs every right set × selection for valid test keys inside the CIDR, and a rotating sixth of
 * the right sets for the other condition combinations; MATRIX_FULL=1 (npm run test:hostile) runs all. */
const FULL = process.env.MATRIX_FULL === '1';
const ENV = { RATE_LIMIT_BURST: '10000000', RATE_LIMIT_ANON_BURST: '10000000', MONITOR_LIMIT: '1000000' };

type Pair = { right: RightName; domain?: string };
/** Alternatives (any one suffices), each a conjunction of pairs; [[]] = any valid key. */
type Needs = Pair[][];
interface Sample {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}
interface Fixture {
  certId: string;
}

/** Routes that declare `rightsOfRecord`: what they need for these fixtures (the check is the use case's). */
const USE_CASE_RIGHTS: Record<string, { needs: (f: Fixture) => Needs; sample?: (f: Fixture) => Sample }> = {
  createPlan: {
    needs: () => [[{ right: 'dns.edit', domain: TARGET }]],
    sample: () => ({ body: { changes: [{ action: 'create', name: 'hostile-matrix', type: 'A', ttl: 300, values: ['192.0.2.1'] }] } }),
  },
  requestCertificate: { needs: () => [[{ right: 'cert.issue', domain: TARGET }]] },
  listCertificates: { needs: () => [[{ right: 'cert.read' }]] },
  getCertificate: { needs: () => [[{ right: 'cert.read', domain: TARGET }]], sample: (f) => ({ params: { id: f.certId } }) },
  getCertificateChain: { needs: () => [[{ right: 'cert.read', domain: TARGET }]], sample: (f) => ({ params: { id: f.certId } }) },
  getCertificatePrivateKey: { needs: () => [[{ right: 'cert.issue', domain: TARGET }]], sample: (f) => ({ params: { id: f.certId } }) },
  revokeCertificate: { needs: () => [[{ right: 'cert.issue', domain: TARGET }]], sample: (f) => ({ params: { id: f.certId } }) },
  // Class 3 operations: which operations a key may confirm or cancel is the use case's (right of the
  // operation's kind on its domain, a different owner); test/operations/class3.test.ts walks those rules.
  // Here: an unknown id is 404 operation_not_found to every valid key, never an authorization answer.
  confirmOperation: { needs: () => [[]], sample: () => ({ params: { id: 'no-such-operation' } }) },
  cancelOperation: { needs: () => [[]], sample: () => ({ params: { id: 'no-such-operation' } }) },
  // Monitors: one of a domain the key cannot read is 404 monitor_not_found (test/monitoring walks the
  // scope rules); an unknown id is 404 to every valid key.
  getMonitor: { needs: () => [[]], sample: () => ({ params: { id: 'no-such-monitor' } }) },
  updateMonitor: { needs: () => [[]], sample: () => ({ params: { id: 'no-such-monitor' }, body: { enabled: false } }) },
  deleteMonitor: { needs: () => [[]], sample: () => ({ params: { id: 'no-such-monitor' } }) },
  listMonitorResults: { needs: () => [[]], sample: () => ({ params: { id: 'no-such-monitor' } }) },
  getMonitorReport: { needs: () => [[]], sample: () => ({ params: { id: 'no-such-monitor' } }) },
};

/** Class 3 writes that make a domain safer take effect at once (setting the transfer lock again). */
const AT_ONCE_CLASS3 = new Set(['setTransferLock']);

/** Sample inputs where a route's schema alone cannot produce a valid request (patterns, formats of the
 * use case). Nothing about rights here: that comes from the declaration or USE_CASE_RIGHTS. */
const SAMPLES: Record<string, (f: Fixture) => Sample> = {
  previewKey: () => ({ body: { environment: 'test', rights: ['domain.read'], domains: [TARGET] } }),
  issueKey: () => ({ body: { environment: 'test', rights: ['domain.read'], domains: [TARGET] } }),
  revokeKey: () => ({ params: { id: '000000000000' } }),
  advanceSandboxClock: () => ({ body: { advance: 'PT1M' } }),
  applyPlan: () => ({ params: { id: 'no-such-plan' }, body: {} }),
  addAcmeChallenge: () => ({ body: { name: `_acme-challenge.${TARGET}`, value: 'hostile-matrix-token' } }),
  removeAcmeChallenge: () => ({ params: { id: 'no-such-challenge' } }),
  getOperation: () => ({ params: { id: 'no-such-operation' } }),
  createMonitor: () => ({ body: { kind: 'domain_expiry', domain: TARGET } }),
  listMonitors: () => ({ query: {} }),
  updateWebhook: () => ({ params: { id: 'no-such-webhook' }, body: { enabled: true } }),
  // A well-formed token that no invitation has: 404 invitation_invalid, past validation.
  inspectInvitation: () => ({ query: { token: 'A'.repeat(43) } }),
  acceptInvitation: () => ({ body: { token: 'A'.repeat(43), name: 'Hostile Matrix', password: 'correct horse battery staple 1' } }),
  invitePerson: () => ({ body: { email: 'hostile-matrix@example.com', role: 'member' } }),
  // Six digits (the schema's pattern) that are no current code: 409/422 from the use case, past validation.
  enableTwoFactor: () => ({ body: { totp: '000000' } }),
  changeRegistrant: () => ({
    params: { domain: TARGET },
    body: {
      environment: 'test',
      registrant: {
        name: 'Hostile Matrix',
        email: 'holder@example.com',
        phone: '+380.441234567',
        address: { street: ['Khreshchatyk 1'], city: 'Kyiv', postal_code: '01001', country_code: 'UA' },
      },
    },
  }),
};

/** 503s that say an adapter is not configured here (live registrar, live card setup), not a crash. */
const CONFIGURATION_503 = new Set(['environment_unavailable', 'card_setup_unavailable']);
/** Codes that mean "refused before the route's own work": an allowed call must never get one. */
const AUTH_CODES = new Set([
  'unauthenticated',
  'key_invalid',
  'key_expired',
  'key_revoked',
  'ip_not_allowed',
  'right_missing',
  'human_only',
  'session_required',
  'sandbox_only',
  'environment_unavailable',
]);
/** Codes that mean the sample itself was not accepted, so the route's check was never reached. */
const SAMPLE_CODES = new Set([
  'validation_failed',
  'malformed_json',
  'idempotency_key_required',
  'idempotency_key_invalid',
  'unsupported_media_type',
  'not_found',
  'method_not_allowed',
]);

// ---- An independent model of DESIGN's policy rules (not core/access/policy.ts) ----------------------
const closure = (r: RightName): Set<RightName> => {
  const out = new Set<RightName>([r]);
  for (const x of RIGHTS[r].implies) for (const y of closure(x)) out.add(y);
  return out;
};
const selected = (s: Selection, domain: string): boolean =>
  'domains' in s ? s.domains.includes(domain) : (LABELS[domain] ?? []).includes(s.label);
const pairAllowed = (policies: readonly Policy[], pair: Pair): boolean => {
  const holders = policies.filter((p) => closure(p.right).has(pair.right));
  if (RIGHTS[pair.right].scope === 'account' || pair.domain === undefined) return holders.length > 0;
  if (LABELS[pair.domain]) return holders.some((p) => selected(p.resources, pair.domain!));
  // A name not in the account: only a policy naming it, or (DESIGN) a label-scoped domain.register.
  return holders.some((p) => ('domains' in p.resources ? p.resources.domains.includes(pair.domain!) : pair.right === 'domain.register'));
};
const satisfied = (policies: readonly Policy[], needs: Needs): boolean => needs.some((alt) => alt.every((p) => pairAllowed(policies, p)));

// ---- Case generation ------------------------------------------------------------------------------------
const SELECTIONS: Record<string, Selection> = {
  'named in scope': { domains: [TARGET] },
  'named out of scope': { domains: [OTHER] },
  'label in scope': { label: 'prod' },
  'label out of scope': { label: 'blog' },
};
const CIDRS = { inside: '127.0.0.0/8', outside: '10.0.0.0/8' } as const;
const VALIDITY = ['valid', 'expired', 'revoked'] as const;

interface KeyCase {
  set: number;
  label: string;
  token: string;
  environment: 'test' | 'live';
  policies: Policy[];
  cidr: keyof typeof CIDRS;
  validity: (typeof VALIDITY)[number];
}
type Caller = { kind: 'key'; key: KeyCase } | { kind: 'session' } | { kind: 'none' };
type Expected = { allowed: true } | { allowed: false; status: number; code: string };

interface Plan {
  route: Route;
  path: string;
  query: string;
  body: string | undefined;
  needs: Needs | null;
  problem?: string;
}

const substitute = (route: Route, sample: Sample): string =>
  route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const v =
      sample.params?.[name] ??
      (route.access.kind === 'key' && route.access.domainParam === name ? TARGET : /domain/i.test(name) ? TARGET : 'hostile-id');
    return encodeURIComponent(v);
  });

export const planRoute = (route: Route, f: Fixture): Plan => {
  const table = USE_CASE_RIGHTS[route.id];
  const sample: Sample = table?.sample?.(f) ?? SAMPLES[route.id]?.(f) ?? {};
  const body = sample.body !== undefined ? sample.body : route.body ? sampleOf(route.body, TARGET) : undefined;
  const query = sample.query ?? (route.query ? (sampleOf(route.query, TARGET) as Record<string, string>) : {});
  const path = substitute(route, sample);
  const qs = new URLSearchParams(Object.entries(query ?? {}).map(([k, v]) => [k, String(v)])).toString();
  const plan: Plan = {
    route,
    path,
    query: qs ? `?${qs}` : '',
    body: body === undefined ? (['POST', 'PUT', 'PATCH'].includes(route.method) ? '{}' : undefined) : JSON.stringify(body),
    needs: null,
  };
  const a = route.access;
  if (a.kind !== 'key') return plan;
  if (a.right || a.rights || a.anyKey) {
    // Each declared pair is one requirement; a pair naming several rights is satisfied by any one of them.
    const requirements: Pair[][] = [];
    if (a.right) requirements.push([{ right: a.right, ...(a.domainParam ? { domain: TARGET } : {}) }]);
    if (a.rights) {
      const params: Record<string, string> = {};
      route.path.replace(
        /\{(\w+)\}/g,
        (_m, n: string) => ((params[n] = decodeURIComponent(substitute({ ...route, path: `{${n}}` }, sample))), ''),
      );
      for (const p of a.rights.of({ params, query, body, ip: '127.0.0.1' })) {
        requirements.push(
          (typeof p.right === 'string' ? [p.right] : [...p.right]).map((right) => ({
            right,
            ...(p.domain !== undefined ? { domain: p.domain } : {}),
          })),
        );
      }
    }
    if (table) plan.problem = `${route.id} declares its right and is also in USE_CASE_RIGHTS: remove the table entry`;
    plan.needs = requirements.reduce<Needs>((alts, req) => alts.flatMap((alt) => req.map((p) => [...alt, p])), [[]]);
    return plan;
  }
  if (a.rightsOfRecord && table) plan.needs = table.needs(f);
  else if (a.rightsOfRecord)
    plan.problem = `${route.method} ${route.path} (${route.id}) declares rightsOfRecord: add what it needs for the fixtures to USE_CASE_RIGHTS in test/hostile/authorization-matrix.test.ts`;
  else
    plan.problem = `${route.method} ${route.path} (${route.id}) is a keyed route with no access declaration: declare \`right\` (+ \`domainParam\`), \`rights\`, \`rightsOfRecord\` or \`anyKey\``;
  return plan;
};

const expected = (plan: Plan, caller: Caller): Expected => {
  const a = plan.route.access;
  if (a.kind === 'public') return { allowed: true };
  if (a.kind === 'human') {
    if (caller.kind === 'key') return { allowed: false, status: 403, code: 'human_only' };
    if (a.session && caller.kind === 'none') return { allowed: false, status: 401, code: 'session_required' };
    return { allowed: true };
  }
  if (caller.kind !== 'key') return { allowed: false, status: 401, code: 'unauthenticated' };
  const k = caller.key;
  if (k.validity === 'revoked') return { allowed: false, status: 401, code: 'key_revoked' };
  if (k.validity === 'expired') return { allowed: false, status: 401, code: 'key_expired' };
  if (k.cidr === 'outside') return { allowed: false, status: 403, code: 'ip_not_allowed' };
  if (a.sandboxOnly && k.environment !== 'test') return { allowed: false, status: 403, code: 'sandbox_only' };
  // DESIGN: live keys answer 503 while no live adapters are configured (the default here).
  if (k.environment === 'live') return { allowed: false, status: 503, code: 'environment_unavailable' };
  if (!satisfied(k.policies, plan.needs!)) return { allowed: false, status: 403, code: 'right_missing' };
  return { allowed: true };
};

const highestClass = (needs: Needs): number => Math.max(-1, ...needs.flat().map((p) => RIGHTS[p.right].class));

eachStore('Hostile: authorization matrix (generated from the mounted routes)', (kind) => {
  let api: TestApi;
  let client: FastClient;
  let fixture: Fixture;
  const keys: KeyCase[] = [];

  before(async function () {
    this.timeout(300_000);
    api = await startApi(kind, { env: ENV });
    client = new FastClient(api.base);
    // A certificate on TARGET, so the certificate routes reach their rights check.
    const issuer = await plantKey(api, {
      environment: 'test',
      policies: [{ right: 'cert.issue', resources: { domains: [TARGET] } }],
      cidr: null,
      expiresOn: '2099-12-31',
      revoked: false,
    });
    const cert = await client.send(
      'POST',
      '/v1/certificates',
      { authorization: `Bearer ${issuer.token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      JSON.stringify({ domains: [TARGET] }),
    );
    expect(cert.status, cert.text).to.equal(202);
    fixture = { certId: cert.body.id };
    const sets = rightSets(TEMPLATES, RIGHT_NAMES);
    const specs: Array<Omit<KeyCase, 'token'>> = [];
    for (const [setIndex, set] of sets.entries())
      for (const [selName, sel] of Object.entries(SELECTIONS))
        for (const environment of ['test', 'live'] as const)
          for (const cidr of ['inside', 'outside'] as const)
            for (const validity of VALIDITY) {
              specs.push({
                set: setIndex,
                label: `${set.name} · ${selName} · ${environment} · ${cidr} CIDR · ${validity}`,
                environment,
                cidr,
                validity,
                policies: set.rights.map((right) => ({ right, resources: sel })),
              });
            }
    await pool(specs, 4, async (s) => {
      const { token } = await plantKey(api, {
        environment: s.environment,
        policies: s.policies,
        cidr: CIDRS[s.cidr],
        expiresOn: s.validity === 'expired' ? '2020-01-31' : '2099-12-31',
        revoked: s.validity === 'revoked',
      });
      keys.push({ ...s, token });
    });
  });
  after(async () => {
    client?.close();
    await api?.close();
  });

  it('every mounted route carries an access declaration the matrix can compute from', () => {
    const problems = mountedRoutes(api)
      .map((r) => planRoute(r, fixture).problem)
      .filter(Boolean);
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('a new keyed route without a declaration (or a table entry) fails the matrix, it is not skipped', () => {
    // What the route types refuse to compile, built around them: a key route that states nothing.
    const bare = {
      ...mountedRoutes(api).find((r) => r.id === 'getKey')!,
      id: 'brandNewRoute',
      path: '/v1/brand-new',
      access: { kind: 'key' },
    } as unknown as Route;
    expect(planRoute(bare, fixture).problem).to.match(/no access declaration/);
    const declared = {
      ...bare,
      access: { kind: 'key' as const, right: 'monitor.edit' as const, domainParam: 'domain' },
      path: '/v1/domains/{domain}/brand-new',
    };
    const planned = planRoute(declared, fixture);
    expect(planned.problem).to.equal(undefined);
    expect(planned.needs).to.deep.equal([[{ right: 'monitor.edit', domain: TARGET }]]);
  });

  it('every route × right/template × selection × environment × CIDR × validity × caller answers as its declaration says', async function () {
    this.timeout(900_000);
    const routes = mountedRoutes(api);
    const plans = routes.map((r) => planRoute(r, fixture));
    const cases: Array<{ plan: Plan; caller: Caller }> = [];
    for (const plan of plans) {
      if (plan.problem) continue; // reported by the test above
      if (plan.route.access.kind === 'public' && plan.route.method !== 'GET') continue;
      cases.push({ plan, caller: { kind: 'none' } }, { plan, caller: { kind: 'session' } });
      const r = plans.indexOf(plan);
      for (const key of keys) {
        const plain = key.validity === 'valid' && key.environment === 'test' && key.cidr === 'inside';
        if (FULL || plain || (key.set + r) % 6 === 0) cases.push({ plan, caller: { kind: 'key', key } });
      }
    }
    // Session writes (sign-out ends the session) run last, one at a time, each with a fresh session.
    const isSessionWrite = (c: { plan: Plan; caller: Caller }) => c.caller.kind === 'session' && c.plan.route.writes;
    const cookie = await api.signIn();
    const failures: string[] = [];
    const unreachable = new Set<string>();
    const seen = { allowed: 0, refused: 0 };
    const started = Date.now();
    const runCase = async ({ plan, caller }: { plan: Plan; caller: Caller }) => {
      const headers: Record<string, string> = { 'idempotency-key': randomUUID() };
      if (plan.body !== undefined) headers['content-type'] = 'application/json';
      if (caller.kind === 'key') headers.authorization = `Bearer ${caller.key.token}`;
      if (caller.kind === 'session') headers.cookie = plan.route.writes ? await api.signIn() : cookie;
      const exp = expected(plan, caller);
      const who = caller.kind === 'key' ? caller.key.label : caller.kind;
      const label = `${plan.route.method} ${plan.path} [${plan.route.id}] as ${who}`;
      let r: Answer;
      try {
        r = await client.send(plan.route.method, plan.path + plan.query, headers, plan.body);
      } catch (err) {
        failures.push(`${label}: ${(err as Error).message}`);
        return;
      }
      const code: string | undefined = r.body?.error?.code;
      if (r.status >= 500 && !CONFIGURATION_503.has(code ?? '')) {
        failures.push(`${label}: ${r.status} ${r.text.slice(0, 300)}`);
        return;
      }
      if (exp.allowed) {
        seen.allowed++;
        if (code && SAMPLE_CODES.has(code))
          unreachable.add(
            `${plan.route.id}: the generated sample was refused with ${code} (${r.text.slice(0, 300)}) — add a sample to USE_CASE_RIGHTS`,
          );
        else if (code && AUTH_CODES.has(code)) failures.push(`${label}: expected to pass authorization, got ${r.status} ${code}`);
        else if (
          plan.route.writes &&
          plan.needs &&
          highestClass(plan.needs) === 3 &&
          !AT_ONCE_CLASS3.has(plan.route.id) &&
          r.status >= 200 &&
          r.status < 300 &&
          r.status !== 202
        ) {
          failures.push(`${label}: a class 3 write must answer 202 (an operation that waits), got ${r.status}`);
        }
      } else {
        seen.refused++;
        if (r.status !== exp.status || code !== exp.code)
          failures.push(`${label}: expected ${exp.status} ${exp.code}, got ${r.status} ${code ?? r.text.slice(0, 200)}`);
        else if (ERROR_TABLE[exp.code as keyof typeof ERROR_TABLE].status < 500) {
          try {
            expectErrorShape({ status: r.status, headers: {}, body: r.body }, exp.status, exp.code);
          } catch (err) {
            failures.push(`${label}: error shape: ${(err as Error).message}`);
          }
        }
      }
    };
    await pool(
      cases.filter((c) => !isSessionWrite(c)),
      8,
      runCase,
    );
    await pool(cases.filter(isSessionWrite), 1, runCase);
    const secs = (Date.now() - started) / 1000;
    console.log(
      `      authorization matrix [${kind.engine}]: ${cases.length} cases over ${plans.length} routes and ${keys.length} keys (${seen.allowed} allowed, ${seen.refused} refused) in ${secs.toFixed(1)} s${FULL ? '' : ' (MATRIX_FULL=1 for every condition combination)'}`,
    );
    const all = [...unreachable, ...failures];
    expect(all.length, `${all.length} failures:\n${all.slice(0, 60).join('\n')}`).to.equal(0);
    expect(cases.length).to.be.greaterThan(FULL ? 40_000 : 10_000);
  });
});
