import type { Logger } from 'pino';
import type { IssuanceQueue } from '../core/certificates/certificates.use-case.js';
import type { CertificateIssuance } from '../core/certificates/certificate-issuance.use-case.js';

/**
 * Runs a newly requested certificate through its CA at once, in this process, after the request's
 * transaction committed (the sandbox CA answers in milliseconds). Whatever it does not finish — the
 * process stops, the CA is down — the worker picks up from the store: work on a certificate is
 * guarded by a lease, so the two never run one order at the same time.
 */
export class InProcessIssuanceQueue implements IssuanceQueue {
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  private issuance: CertificateIssuance | null = null;

  constructor(private readonly log: Logger) {}

  attach(issuance: CertificateIssuance): void {
    this.issuance = issuance;
  }

  enqueue(certificateId: string): void {
    if (this.closed || !this.issuance) return; // the worker picks it up
    const run: Promise<void> = this.issuance
      .process(certificateId)
      .catch((err: unknown) => this.log.error({ err, certificateId }, 'certificate issuance failed; the worker will retry'))
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }

  /** Resolves when every run started so far has finished (shutdown, tests). */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.drain();
  }
}
