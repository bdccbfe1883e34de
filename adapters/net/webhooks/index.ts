import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { Environment } from '../../../core/kernel/environment.js';
import type { SendOutcome, WebhookRequest, WebhookSender } from '../../../core/webhooks/ports/webhook-sender.port.js';
import {
  assertPublicUrl,
  guardedAgentOptions,
  guardedFetch,
  GuardedFetchError,
  SsrfRefusedError,
  type Resolve,
  type SsrfOptions,
} from '../ssrf/index.js';

export interface SenderOptions {
  /** WEBHOOKS_ALLOW_LOOPBACK=1: test-environment endpoints may be http://127.0.0.1 / [::1] / localhost. Never in live. */
  readonly allowLoopback: boolean;
  /** Per attempt (default 10 000 ms). */
  readonly timeoutMs?: number;
  /** Connect-time resolver (tests). */
  readonly resolve?: Resolve;
}

const LOOPBACK_HOSTS = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/;

/**
 * Standard Webhooks delivery (https://www.standardwebhooks.com): `webhook-id` (the event id),
 * `webhook-timestamp` (seconds, this machine's clock at sending — receivers compare it with theirs),
 * `webhook-signature` (`v1,<base64 HMAC-SHA256>` per secret, space-separated during a rotation), signed
 * with the `standardwebhooks` package. Every request goes through the SSRF guard (adapters/net/ssrf):
 * https only in live, addresses checked when connecting, no redirects, a timeout per attempt.
 */
export class StandardWebhooksSender implements WebhookSender {
  private readonly agents = new Map<string, HttpAgent | HttpsAgent>();
  private readonly timeoutMs: number;

  constructor(private readonly options: SenderOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  private mode(url: string, environment: Environment): SsrfOptions {
    const loopback = environment === 'test' && this.options.allowLoopback;
    if (!loopback) return { allowLoopback: false, requireHttps: true };
    // The sandbox opening: plain http only to this machine; anything else is judged as in live.
    let host = '';
    try {
      host = new URL(url).host.replace(/:\d+$/, '');
    } catch {
      /* assertPublicUrl reports it */
    }
    return LOOPBACK_HOSTS.test(host) ? { allowLoopback: true, requireHttps: false } : { allowLoopback: false, requireHttps: true };
  }

  refuse(url: string, environment: Environment): string | null {
    try {
      assertPublicUrl(url, this.mode(url, environment));
      return null;
    } catch (err) {
      if (err instanceof SsrfRefusedError) return err.message;
      throw err;
    }
  }

  private agent(url: string, mode: SsrfOptions): HttpAgent | HttpsAgent {
    const https = url.startsWith('https:');
    const key = `${https}:${mode.allowLoopback}`;
    let a = this.agents.get(key);
    if (!a) {
      const o = { ...guardedAgentOptions(mode, this.options.resolve), maxSockets: 64, timeout: this.timeoutMs };
      a = https ? new HttpsAgent(o as never) : new HttpAgent(o as never);
      this.agents.set(key, a);
    }
    return a;
  }

  /** The webhook-signature header value: one `v1,` signature per secret. */
  static sign(secrets: readonly string[], messageId: string, at: Date, payload: string): string {
    return secrets.map((s) => new Webhook(s).sign(messageId, at, payload)).join(' ');
  }

  async send(req: WebhookRequest): Promise<SendOutcome> {
    const mode = this.mode(req.url, req.environment);
    const at = new Date();
    const started = performance.now();
    try {
      const res = await guardedFetch(req.url, {
        ...mode,
        method: 'POST',
        timeoutMs: this.timeoutMs,
        maxBodyBytes: 1024,
        agent: this.agent(req.url, mode),
        ...(this.options.resolve ? { resolve: this.options.resolve } : {}),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Domivka-Webhooks/1 (+https://www.standardwebhooks.com)',
          'webhook-id': req.messageId,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': StandardWebhooksSender.sign(req.secrets, req.messageId, at, req.payload),
        },
        body: req.payload,
      });
      return { kind: 'response', status: res.status, body: res.body.toString('utf8'), latencyMs: res.latencyMs };
    } catch (err) {
      const latencyMs = performance.now() - started;
      if (err instanceof SsrfRefusedError) return { kind: 'error', error: 'refused', message: err.message, latencyMs };
      if (err instanceof GuardedFetchError) return { kind: 'error', error: err.kind, message: err.message, latencyMs };
      return { kind: 'error', error: 'network', message: (err as Error).message, latencyMs };
    }
  }

  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }
}
