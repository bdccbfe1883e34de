import cluster, { type Worker as ClusterWorker } from 'node:cluster';
import type { ZonePublisher } from '../../core/dns/zone/zone-service.js';
import type { Zone } from '../../core/dns/zone/zone.js';
import { answerSignedUseCases } from './signed-ipc.js';
import type { SignedDnsUseCases } from './update/signed-messages.js';

/** What the cluster logs (a pino logger fits); by default one JSON line on stderr. */
export interface DnsClusterLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const STDERR: DnsClusterLogger = {
  warn: (obj, msg) => void process.stderr.write(`${JSON.stringify({ level: 'warn', component: 'dns-cluster', ...obj, msg })}\n`),
  error: (obj, msg) => void process.stderr.write(`${JSON.stringify({ level: 'error', component: 'dns-cluster', ...obj, msg })}\n`),
};

/**
 * A DNS worker's young generation, MB a semi-space: small, whatever its parent runs with (`npm start` gives
 * the API 64 MB ones). A worker keeps what it loads and answers from it, so it gains little from a large
 * one, which grows to its limit while every zone is loaded and stays that size (~30 MB of a worker's RSS).
 */
const WORKER_SEMI_SPACE_MB = 1;

/** The parent's node flags for a worker, its young generation set as above. */
export const workerExecArgv = (parent: readonly string[]): string[] => [
  ...parent.filter((a) => !a.startsWith('--max-semi-space-size') && !a.startsWith('--max_semi_space_size')),
  `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`,
];

/** How long a worker may take from fork to serving (loading every zone from the store). */
const START_TIMEOUT_MS = 60_000;
/** A worker that lived this long before it died is restarted at once; quicker deaths back off 1, 2, 4 … 30 s. */
const HEALTHY_AFTER_MS = 60_000;

/**
 * DNS workers forked ahead of the rest of the start (forkDnsWorkers): each loads its code while the API
 * process loads its own (and, from a store that exists, its zones), and serves only when the DnsCluster
 * that adopts it says so (the store is migrated by then, and the signer has signed what the workers will serve).
 */
export interface HeldDnsWorkers {
  readonly workerEntry: string;
  readonly workers: readonly ClusterWorker[];
}

/**
 * Sets node:cluster up for DNS workers (once per process: node:cluster freezes both on its first setup).
 * No TCP connection is accepted here (SCHED_NONE): the workers accept their own.
 */
const setUp = (workerEntry: string): void => {
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  // 'advanced': the signed messages' calls carry a key's Dates.
  cluster.setupPrimary({ exec: workerEntry, serialization: 'advanced', execArgv: workerExecArgv(process.execArgv) });
};

/**
 * A DNS worker loads its code, says {type: 'loaded'} and waits for {type: 'start'} before it serves (what it
 * read of a store before then is kept only if no migration came since); it says {type: 'ready'} once it
 * serves (src/main/dns-worker.ts).
 */
const forkWorker = (index: number, signed: boolean, restart = false): ClusterWorker => {
  const worker = cluster.fork({
    DOMIVKA_DNS_WORKER: String(index),
    DOMIVKA_DNS_SIGNED: signed ? '1' : '0',
    // A replacement for a worker that died, the others serving meanwhile (src/dns-server.ts, `restart`).
    DOMIVKA_DNS_RESTART: restart ? '1' : '0',
  });
  worker.on('message', (m: { type?: string }) => m?.type === 'loaded' && loaded.add(worker));
  return worker;
};

/** The workers that said {type: 'loaded'} (a held one says it before its cluster starts). */
const loaded = new WeakSet<ClusterWorker>();

/**
 * Forks `count` DNS workers now, first thing in the start (issue 21: their start overlaps the API process's);
 * they hold until a DnsCluster given them starts. `signed`: whether that cluster will answer signed messages.
 */
export const forkDnsWorkers = (count: number, workerEntry: string, signed: boolean): HeldDnsWorkers => {
  setUp(workerEntry);
  return { workerEntry, workers: Array.from({ length: count }, (_, i) => forkWorker(i, signed)) };
};

interface Slot {
  readonly index: number;
  readonly worker: ClusterWorker;
  /** Resolves when the worker serves (it said "ready"); rejects if it exits or times out first. */
  readonly ready: Promise<void>;
  readonly forkedAt: number;
}

/**
 * The DNS server as DNS_WORKERS cluster workers (each runs `workerEntry`). Each worker binds its own UDP
 * socket on the port with SO_REUSEPORT (the udp_batch addon), so the kernel spreads senders among the
 * workers and a dead worker's share moves to the living at once. The TCP listener is one, which this
 * process (the API) binds and hands over, then leaves alone: with SCHED_NONE it accepts no TCP
 * connection (the workers accept their own). Without the addon, or with DNS_PORT=0, the UDP socket is
 * shared the same way (each worker reads the one socket; this process reads no datagram).
 *
 * As a ZonePublisher it asks every worker to sync and resolves once all have: the change is then
 * served, whichever worker answers the next query. A worker still starting is waited for and then synced
 * too. A worker that dies is replaced (at once if it had run a minute, else after 1, 2, 4 … 30 s), and the
 * replacement loads every zone from the store before it serves.
 */
export class DnsCluster implements ZonePublisher {
  private readonly slots: Slot[] = [];
  private readonly restarts: number[] = [];
  private seq = 0;
  private started = false;
  private stopping = false;

  private readonly count: number;
  private readonly workerEntry: string;
  private readonly timeoutMs: number;
  private readonly log: DnsClusterLogger;
  private readonly beforeSync: (() => Promise<void>) | null;
  private readonly signed: SignedDnsUseCases | (() => Promise<SignedDnsUseCases>) | null;
  private held: readonly ClusterWorker[] | null;

  constructor(options: {
    /** How many worker processes serve DNS. */
    readonly workers: number;
    /** The script each worker runs (the composition root's DNS worker entry point). */
    readonly workerEntry: string;
    readonly timeoutMs?: number;
    readonly log?: DnsClusterLogger;
    /** Runs before the workers are asked to sync: the signer stores the signatures of what changed first. */
    readonly beforeSync?: () => Promise<void>;
    /**
     * The use cases of DNS UPDATE and signed messages, answered here for every worker (signed-ipc.ts), or how
     * to load them on the first message; without them the workers serve no UPDATE.
     */
    readonly signed?: SignedDnsUseCases | (() => Promise<SignedDnsUseCases>);
    /** Workers already forked (forkDnsWorkers, with the same entry and `signed`): adopted by start() in place of new ones. */
    readonly held?: HeldDnsWorkers;
  }) {
    if (options.held && (options.held.workerEntry !== options.workerEntry || options.held.workers.length !== options.workers)) {
      throw new Error('DnsCluster: the held workers were forked for another entry point or count');
    }
    this.held = options.held?.workers ?? null;
    this.signed = options.signed ?? null;
    this.beforeSync = options.beforeSync ?? null;
    this.count = options.workers;
    this.workerEntry = options.workerEntry;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.log = options.log ?? STDERR;
  }

  async start(): Promise<void> {
    if (!this.held) setUp(this.workerEntry);
    for (let i = 0; i < this.count; i++) {
      this.slots.push(this.fork(i));
      this.restarts.push(0);
    }
    try {
      await Promise.all(this.slots.map((s) => s.ready));
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.started = true;
  }

  private fork(index: number): Slot {
    // A held worker (forked earlier, first start only) is adopted; its replacements are forked here.
    const heldWorker = this.held?.[index];
    if (this.held && index === this.held.length - 1) this.held = null;
    // `restart`: a worker that replaces one once the cluster serves (the others serve meanwhile), not one of its start.
    const worker = heldWorker && !heldWorker.isDead() ? heldWorker : forkWorker(index, this.signed !== null, this.started);
    if (this.signed) answerSignedUseCases(worker, this.signed);
    // The worker serves once told to (now: the store is migrated and the signer has run).
    const start = (): void => void (worker.isConnected() && worker.send({ type: 'start' }));
    if (loaded.has(worker)) start();
    else worker.on('message', (m: { type?: string }) => m?.type === 'loaded' && start());
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`DNS worker ${index} did not start within ${START_TIMEOUT_MS / 1000} s`));
        worker.kill('SIGKILL');
      }, START_TIMEOUT_MS);
      worker.on('message', (m: { type?: string }) => {
        if (m?.type !== 'ready') return;
        clearTimeout(timer);
        resolve();
      });
      worker.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`DNS worker ${index} exited with ${code ?? signal}`));
      });
    });
    ready.catch(() => undefined); // observed by start() or syncOne(); never unhandled
    const slot: Slot = { index, worker, ready, forkedAt: Date.now() };
    worker.once('exit', (code, signal) => this.onExit(slot, code, signal));
    return slot;
  }

  private onExit(slot: Slot, code: number | null, signal: string | null): void {
    if (this.stopping || !this.started || this.slots[slot.index] !== slot) return;
    const lived = Date.now() - slot.forkedAt;
    if (lived >= HEALTHY_AFTER_MS) this.restarts[slot.index] = 0;
    const attempt = this.restarts[slot.index]!++;
    const delayMs = attempt === 0 ? 0 : Math.min(30_000, 1000 * 2 ** (attempt - 1));
    this.log.error(
      { worker: slot.index, pid: slot.worker.process.pid, code, signal, livedMs: lived, restartInMs: delayMs },
      'DNS worker exited; starting another',
    );
    setTimeout(() => {
      if (this.stopping || this.slots[slot.index] !== slot) return;
      const next = this.fork(slot.index);
      this.slots[slot.index] = next;
      next.ready.then(
        () => this.log.warn({ worker: slot.index, pid: next.worker.process.pid }, 'DNS worker restarted'),
        () => undefined, // its own exit starts the next attempt
      );
    }, delayMs);
  }

  /** Syncs one worker: waits for it to be serving, then asks it to load what changed and waits for the answer. */
  private async syncOne(slot: Slot, id: number): Promise<void> {
    try {
      await slot.ready;
    } catch {
      return; // it died before serving; its replacement loads every zone from the store when it starts
    }
    const w = slot.worker;
    if (!w.isConnected()) return; // died since: the same
    await new Promise<void>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        w.off('message', onMessage);
        w.off('exit', onExit);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error('a DNS worker did not sync in time'));
      }, this.timeoutMs);
      const onMessage = (m: { type?: string; id?: number; error?: string }): void => {
        if (m?.type !== 'synced' || m.id !== id) return;
        done();
        if (m.error) reject(new Error(m.error));
        else resolve();
      };
      const onExit = (): void => {
        done();
        resolve(); // it serves nothing any more; its replacement starts from the store
      };
      w.on('message', onMessage);
      w.once('exit', onExit);
      w.send({ type: 'sync', id });
    });
  }

  /**
   * Syncs the workers that do not send NOTIFY first, all at once, and worker 0 — the one that NOTIFYs
   * the secondaries when its zone changes — only after them: a secondary told of a change asks us for
   * the SOA right away, and whichever worker answers must already serve the new serial (with
   * all synced at once, 9 of 20 fast changes never reached Knot). Worker 0 also checks that each
   * secondary caught up and NOTIFYs again if not (notify.verifyMs), for changes it finds by polling.
   */
  private async syncAll(): Promise<void> {
    // A signed zone's new version is signed (and its signatures stored) before any worker looks for them.
    await this.beforeSync?.().catch((err: unknown) => this.log.error({ err }, 'signing before the sync failed'));
    const id = ++this.seq;
    const [first, ...rest] = this.slots;
    await Promise.all(rest.map((s) => this.syncOne(s, id)));
    if (first) await this.syncOne(first, id);
  }

  async publish(_zone: Zone): Promise<void> {
    await this.syncAll();
  }

  /** Every worker loads every changed zone now. */
  resync(): Promise<void> {
    return this.syncAll();
  }

  async withdraw(_domain: string): Promise<void> {
    await this.syncAll();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      this.slots.map(
        ({ worker: w }) =>
          new Promise<void>((resolve) => {
            if (w.isDead()) return resolve();
            w.once('exit', () => resolve());
            w.kill('SIGTERM');
          }),
      ),
    );
  }
}
