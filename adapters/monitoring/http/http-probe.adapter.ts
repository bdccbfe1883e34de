import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { HttpSpec } from '../../../core/monitoring/monitor.js';
import type { HttpProbe, ProbeOutcome } from '../../../core/monitoring/ports/probes.port.js';

/** The key's text as a JSON string, at most `max` characters: line breaks and controls show as escapes, on one line. */
const quoteJson = (v: string, max: number): string => {
  const chars = [...v];
  return JSON.stringify(chars.length <= max ? v : `${chars.slice(0, max - 1).join('')}…`);
};

export interface HttpProbeOptions {
  /** Connect-time resolver: the SSRF guard's (live) or one asking our own DNS (sandbox). */
  readonly lookup: LookupFunction;
  /** Checks the URL before any connection (the SSRF guard's assertPublicUrl); throws to refuse. */
  readonly assertUrl: (url: string) => void;
  /** Extra trusted roots for https (the sandbox CA in the test environment). */
  readonly ca?: () => Promise<readonly string[]>;
  /** Bytes of the body searched for `body_contains` (default 1 MiB); the rest is not read. */
  readonly maxBodyBytes?: number;
  readonly userAgent?: string;
}

/**
 * The http probe: one GET, no redirects followed (a 3xx is the answer and must equal expected_status),
 * latency from the request's start to the end of the body (up to the cap). Fails on a wrong status, a
 * missing body substring, a latency above max_latency_ms, a refused or failed connection, or the timeout.
 */
export class HttpProbeAdapter implements HttpProbe {
  constructor(private readonly options: HttpProbeOptions) {}

  async check(spec: HttpSpec, timeoutMs: number): Promise<ProbeOutcome> {
    try {
      this.options.assertUrl(spec.url);
    } catch (err) {
      return { ok: false, latencyMs: null, reason: `target refused: ${(err as Error).message}`, detail: { refused: true } };
    }
    const url = new URL(spec.url);
    const cap = this.options.maxBodyBytes ?? 1024 * 1024;
    const ca = url.protocol === 'https:' && this.options.ca ? await this.options.ca() : [];
    const started = performance.now();
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<ProbeOutcome>((resolve) => {
      let done = false;
      const finish = (o: ProbeOutcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        req.destroy();
        resolve(o);
      };
      const req = send(url, {
        method: 'GET',
        agent: false,
        lookup: this.options.lookup,
        headers: { 'user-agent': this.options.userAgent ?? 'Domivka-Monitor/1.0 (+https://domivka.net)', accept: '*/*' },
        ...(ca.length > 0 ? { ca: [...rootCertificates, ...ca] } : {}),
      });
      const timer = setTimeout(
        () =>
          finish({ ok: false, latencyMs: null, reason: `no complete answer within ${timeoutMs} ms`, detail: { timeout_ms: timeoutMs } }),
        timeoutMs,
      );
      req.on('error', (err: NodeJS.ErrnoException) => {
        const refused = (err as { code?: string }).code === 'ssrf_refused';
        finish({
          ok: false,
          latencyMs: null,
          reason: refused ? `target refused: ${err.message}` : `connection failed: ${err.code ?? err.message}`,
          detail: refused ? { refused: true } : { error: err.code ?? err.message },
        });
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const judge = () => {
          const latencyMs = Math.round(performance.now() - started);
          const status = res.statusCode ?? 0;
          const body = Buffer.concat(chunks).toString('utf8');
          const detail = { status, latency_ms: latencyMs, ...(res.headers.location ? { location: res.headers.location } : {}) };
          if (status !== spec.expectedStatus)
            return finish({ ok: false, latencyMs, reason: `status ${status}, expected ${spec.expectedStatus}`, detail });
          if (spec.bodyContains !== null && !body.includes(spec.bodyContains)) {
            return finish({ ok: false, latencyMs, reason: `the body does not contain ${quoteJson(spec.bodyContains, 100)}`, detail });
          }
          if (spec.maxLatencyMs !== null && latencyMs > spec.maxLatencyMs) {
            return finish({ ok: false, latencyMs, reason: `answered in ${latencyMs} ms, over ${spec.maxLatencyMs} ms`, detail });
          }
          finish({ ok: true, latencyMs, reason: null, detail });
        };
        res.on('data', (chunk: Buffer) => {
          if (size < cap) chunks.push(chunk.subarray(0, cap - size));
          size += chunk.length;
          if (size >= cap) judge(); // enough read: judge on the first megabyte
        });
        res.on('end', judge);
        res.on('error', (err) => finish({ ok: false, latencyMs: null, reason: `connection failed: ${err.message}`, detail: {} }));
      });
      req.end();
    });
  }
}
