import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { SIGNATURE_LENGTH, signJobs, type SigningJob } from './dnssec.js';

/**
 * Bulk signing on worker threads (node:crypto in each): signing a zone from scratch is one signature per
 * RRset and key — some 200 000 for a 100 000-record zone — and each is independent. The jobs go out in
 * batches (the data to sign, back to back in one transferred buffer, and the key as a KeyObject, which
 * node clones into the thread), and the 64-octet signatures come back into the RRSIGs laid out for them.
 * A few signatures (a plan's) are made in this thread: a round trip to a thread costs more than they do.
 * compileZoneAsync calls `sign` with parts of a zone's jobs while it is still laying out the rest: a batch
 * is posted before `sign` first awaits, so the threads work while this one compiles.
 */
const INLINE_BELOW = 512;
const BATCH = 4096;

const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { sign } = require('node:crypto');
parentPort.on('message', (m) => {
  const data = Buffer.from(m.data);
  const out = Buffer.alloc((m.offsets.length - 1) * 64);
  for (let i = 0; i + 1 < m.offsets.length; i++) {
    const part = data.subarray(m.offsets[i], m.offsets[i + 1]);
    const sig = m.algorithm === 13 ? sign('sha256', part, { key: m.key, dsaEncoding: 'ieee-p1363' }) : sign(null, part, m.key);
    sig.copy(out, i * 64);
  }
  parentPort.postMessage({ id: m.id, out: out.buffer }, [out.buffer]);
});
`;

export class SignPool {
  private threads: Worker[] = [];
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: (b: ArrayBuffer) => void; reject: (e: unknown) => void }>();
  private next = 0;

  constructor(readonly size = Math.max(1, availableParallelism())) {}

  private thread(): Worker {
    if (this.threads.length < this.size) {
      const w = new Worker(THREAD_SOURCE, { eval: true });
      w.unref();
      w.on('message', (m: { id: number; out: ArrayBuffer }) => {
        const p = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        p?.resolve(m.out);
      });
      w.on('error', (err) => {
        for (const p of this.waiting.values()) p.reject(err);
        this.waiting.clear();
        this.threads = this.threads.filter((t) => t !== w);
      });
      this.threads.push(w);
      return w;
    }
    return this.threads[this.next++ % this.threads.length]!;
  }

  /** Signs every job, filling its RRSIG in place. */
  readonly sign = async (jobs: readonly SigningJob[]): Promise<void> => {
    if (jobs.length < INLINE_BELOW) return signJobs(jobs);
    const byKey = new Map<SigningJob['key'], SigningJob[]>();
    for (const j of jobs) {
      const list = byKey.get(j.key);
      if (list) list.push(j);
      else byKey.set(j.key, [j]);
    }
    const batches: Promise<void>[] = [];
    for (const [key, list] of byKey) {
      for (let i = 0; i < list.length; i += BATCH) batches.push(this.batch(key, list.slice(i, i + BATCH)));
    }
    await Promise.all(batches);
  };

  private async batch(key: SigningJob['key'], jobs: readonly SigningJob[]): Promise<void> {
    const offsets = new Array<number>(jobs.length + 1);
    let total = 0;
    for (let i = 0; i < jobs.length; i++) {
      offsets[i] = total;
      total += jobs[i]!.data.length;
    }
    offsets[jobs.length] = total;
    const data = new Uint8Array(new ArrayBuffer(total));
    for (let i = 0; i < jobs.length; i++) data.set(jobs[i]!.data, offsets[i]);
    const id = ++this.seq;
    const out = await new Promise<ArrayBuffer>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.thread().postMessage({ id, algorithm: key.algorithm, key: key.key, data: data.buffer, offsets }, [data.buffer]);
    });
    const sigs = Buffer.from(out);
    for (let i = 0; i < jobs.length; i++) {
      const r = jobs[i]!.rrsig;
      sigs.copy(r, r.length - SIGNATURE_LENGTH, i * SIGNATURE_LENGTH, (i + 1) * SIGNATURE_LENGTH);
    }
  }

  async close(): Promise<void> {
    const threads = this.threads;
    this.threads = [];
    await Promise.all(threads.map((t) => t.terminate()));
  }
}
