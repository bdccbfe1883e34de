import { expect } from 'chai';
import { buildSpec, checkInterval, type MonitorRules } from '../../core/monitoring/monitor-spec.js';
import { computeReport, percentile } from '../../core/monitoring/report.js';
import type { CheckResult } from '../../core/monitoring/monitor.js';
import { DomainError } from '../../core/kernel/errors.js';

const rules: MonitorRules = { minIntervalSeconds: (e) => (e === 'live' ? 60 : 10), allowLoopback: (e) => e === 'test', maxPerAccount: 200 };
const d = 'example.com.ua';
const codeOf = (fn: () => unknown): { code: string; rules: string[] } => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return { code: e.code, rules: (e.details ?? []).map((x) => String(x.rule)) };
    throw e;
  }
  throw new Error('did not throw');
};

describe('monitoring rules (core, issue 11)', () => {
  it('interval: ≥ 60 s in live, ≥ 10 s in the sandbox, ≤ a day', () => {
    expect(codeOf(() => checkInterval(59, 'live', rules)).code).to.equal('monitor_interval_too_short');
    expect(() => checkInterval(60, 'live', rules)).to.not.throw();
    expect(codeOf(() => checkInterval(9, 'test', rules)).code).to.equal('monitor_interval_too_short');
    expect(() => checkInterval(10, 'test', rules)).to.not.throw();
    expect(codeOf(() => checkInterval(86_401, 'test', rules)).code).to.equal('monitor_interval_too_short');
  });

  it('targets are the domain or names under it; dns names relative, absolute or "@"', () => {
    expect(buildSpec('dns', { name: 'www', type: 'aaaa' }, d, 'test', rules)).to.deep.include({ name: `www.${d}`, type: 'AAAA' });
    expect(buildSpec('dns', { name: '@' }, d, 'test', rules)).to.deep.include({ name: d, type: 'A' });
    expect(buildSpec('dns', { name: `_dmarc.${d}.`, type: 'TXT' }, d, 'test', rules)).to.deep.include({ name: `_dmarc.${d}` });
    expect(codeOf(() => buildSpec('dns', { name: 'www.example.org.' }, d, 'test', rules)).rules).to.deep.equal(['target-in-domain']);
    expect(buildSpec('http', { url: `https://shop.${d}/health` }, d, 'live', rules)).to.deep.include({
      url: `https://shop.${d}/health`,
      expectedStatus: 200,
    });
    expect(codeOf(() => buildSpec('http', { url: `https://shop.${d}.evil.net/` }, d, 'live', rules)).rules).to.deep.equal([
      'target-in-domain',
    ]);
    expect(codeOf(() => buildSpec('http', { url: 'http://[::1]/' }, d, 'test', rules)).rules).to.deep.equal(['url-host-name']);
    expect(codeOf(() => buildSpec('http', { url: `ftp://${d}/` }, d, 'test', rules)).rules).to.deep.equal(['url-scheme']);
    expect(codeOf(() => buildSpec('http', { url: `https://u:p@${d}/` }, d, 'test', rules)).rules).to.deep.equal(['url-credentials']);
    expect(buildSpec('tls', {}, d, 'live', rules)).to.deep.equal({ kind: 'tls', host: d, port: 443, minDaysValid: 14 });
  });

  it('nameservers: public addresses in live; loopback only where the rules allow; fields of another kind refused', () => {
    expect(buildSpec('dns', { nameservers: ['8.8.8.8', '[2001:4860:4860::8888]:53', '1.1.1.1:5353'] }, d, 'live', rules)).to.deep.include({
      nameservers: ['8.8.8.8:53', '[2001:4860:4860::8888]:53', '1.1.1.1:5353'],
    });
    expect(codeOf(() => buildSpec('dns', { nameservers: ['127.0.0.1'] }, d, 'live', rules)).rules).to.deep.equal(['nameserver-public']);
    expect(buildSpec('dns', { nameservers: ['127.0.0.1:5300'] }, d, 'test', rules)).to.deep.include({ nameservers: ['127.0.0.1:5300'] });
    expect(codeOf(() => buildSpec('dns', { nameservers: ['169.254.169.254'] }, d, 'test', rules)).rules).to.deep.equal([
      'nameserver-public',
    ]);
    expect(codeOf(() => buildSpec('domain_expiry', { url: 'https://x/', port: 1 }, d, 'test', rules)).rules).to.deep.equal([
      'field-kind',
      'field-kind',
    ]);
  });

  it('report: nearest-rank percentiles, uptime to three decimals, incident time clipped to the period', () => {
    expect(percentile([], 50)).to.equal(null);
    expect(percentile([7], 95)).to.equal(7);
    expect(percentile([1, 2, 3, 4], 50)).to.equal(2);
    const at = (h: number) => new Date(Date.UTC(2026, 10, 24, h));
    const results: CheckResult[] = [1, 2, 3].map((i) => ({
      id: `r${i}`,
      monitorId: 'm',
      checkedAt: at(i),
      ok: i !== 2,
      latencyMs: i * 100,
      reason: null,
      detail: {},
    }));
    const r = computeReport('24h', at(0), at(10), results, [
      { id: 'i', monitorId: 'm', startedAt: new Date(Date.UTC(2026, 10, 23, 23)), endedAt: null, reason: 'x' },
    ]);
    expect(r).to.deep.include({ checks: 3, failures: 1, uptime_percent: 66.667, latency_ms: { p50: 200, p95: 300 } });
    expect(r.incidents[0]).to.include({ ended_at: null, duration_seconds: 10 * 3600 });
  });
});
