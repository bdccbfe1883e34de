import cluster, { type Worker as ClusterWorker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import type { ZonePublisher } from '../core/dns/zone-service.js';
import type { Zone } from '../core/dns/zone.js';

/**
 * The DNS server as DNS_WORKERS cluster workers (src/main/dns-worker.ts) sharing one UDP socket and
 * one TCP listener. As a ZonePublisher it asks every worker to sync and resolves once all have: the
 * change is then served, whichever worker answers the next query.
 */
export class DnsCluster implements ZonePublisher {
  private readonly workers: ClusterWorker[] = [];
  private seq = 0;

  constructor(private readonly count: number, private readonly timeoutMs = 10_000) {}

  async start(): Promise<void> {
    cluster.setupPrimary({ exec: fileURLToPath(new URL('./main/dns-worker.ts', import.meta.url)) });
    await Promise.all(Array.from({ length: this.count }, (_, i) => new Promise<void>((resolve, reject) => {
      const w = cluster.fork({ DOMIVKA_DNS_WORKER: String(i) });
      this.workers.push(w);
      const timer = setTimeout(() => reject(new Error(`DNS worker ${i} did not start`)), 60_000);
      w.on('message', (m: { type?: string }) => {
        if (m?.type === 'ready') {
          clearTimeout(timer);
          resolve();
        }
      });
      w.once('exit', (code) => reject(new Error(`DNS worker ${i} exited with ${code}`)));
    })));
  }

  private syncAll(): Promise<void> {
    const id = ++this.seq;
    return Promise.all(this.workers.filter((w) => w.isConnected()).map((w) => new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        w.off('message', onMessage);
        reject(new Error('a DNS worker did not sync in time'));
      }, this.timeoutMs);
      const onMessage = (m: { type?: string; id?: number; error?: string }) => {
        if (m?.type !== 'synced' || m.id !== id) return;
        clearTimeout(timer);
        w.off('message', onMessage);
        if (m.error) reject(new Error(m.error));
        else resolve();
      };
      w.on('message', onMessage);
      w.send({ type: 'sync', id });
    }))).then(() => undefined);
  }

  async publish(_zone: Zone): Promise<void> {
    await this.syncAll();
  }

  async withdraw(_domain: string): Promise<void> {
    await this.syncAll();
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((w) => new Promise<void>((resolve) => {
      if (!w.isConnected() && w.isDead()) return resolve();
      w.once('exit', () => resolve());
      w.kill('SIGTERM');
    })));
  }
}
