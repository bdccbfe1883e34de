import { DomainError, isDomainError, type ErrorCode } from '../../core/kernel/errors.js';
import type { UpdateContext } from '../../core/dns/update/apply-dns-update.use-case.js';
import { bareReply, type SignedDnsUseCases, type Transport } from './update/signed-messages.js';
import { RCODE } from './embedded/wire.js';

/**
 * The use cases behind DNS UPDATE and TSIG-signed messages, answered for a DNS cluster worker by its
 * primary (the API process, which holds the core) over the cluster's IPC channel. A worker then needs no
 * core of its own: it verifies the MAC, answers from its zones and signs, and asks its primary for what the
 * store and the core decide (the key, the credential limiter, the replay claim, the key's rate limit, the
 * UPDATE itself, a transfer's authorisation). The primary's answers are its own: a revocation it sees, its
 * limiter and its token buckets, one group commit per zone for every worker's UPDATEs, and an UPDATE
 * published to every worker (dns/cluster.ts) before the worker hears it is applied.
 *
 * The channel carries Dates (a key's), so the cluster is set up with `serialization: 'advanced'`.
 */

const ASK = 'domivka:signed-dns';
const ANSWER = 'domivka:signed-dns:answer';

type Op =
  | 'tsigKeys.execute'
  | 'tsigKeys.firstUse'
  | 'update.arrive'
  | 'update.release'
  | 'update.execute'
  | 'transfer.execute'
  | 'throttle.admit'
  | 'throttle.succeeded'
  | 'throttle.failed'
  | 'keyRate.takeForKey';

interface Ask {
  readonly type: typeof ASK;
  readonly id: number;
  readonly op: Op;
  readonly args: unknown[];
}

interface Answer {
  readonly type: typeof ANSWER;
  readonly id: number;
  readonly value?: unknown;
  /** A domain error is thrown again as one in the worker (the limiter's too_many_attempts); any other, by its message. */
  readonly error?: { readonly code?: string; readonly params?: unknown; readonly message: string };
}

/** The worker's end: its process (node:cluster worker). */
export interface WorkerChannel {
  readonly connected: boolean;
  send(message: unknown): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'disconnect', listener: () => void): unknown;
}

/** Bounds on the primary's answer; past them the call fails, and the message is answered SERVFAIL. */
export interface RemoteTimeouts {
  /** An UPDATE: the group commit and the publication to every worker (each sync may take 10 s). */
  readonly updateMs: number;
  /** Every other call (one store round trip or none). */
  readonly otherMs: number;
}

const DEFAULT_TIMEOUTS: RemoteTimeouts = { updateMs: 30_000, otherMs: 5_000 };

/**
 * In a DNS cluster worker: SignedDnsUseCases whose every call is answered by the primary. A call fails
 * (and its message gets SERVFAIL, see `servfailOnError`) when the channel is closed, or at its bound if the
 * primary does not answer.
 */
export const remoteSignedUseCases = (channel: WorkerChannel, timeouts: RemoteTimeouts = DEFAULT_TIMEOUTS): SignedDnsUseCases => {
  let seq = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  channel.on('message', (m) => {
    const a = m as Answer;
    if (a?.type !== ANSWER) return;
    const w = waiting.get(a.id);
    if (!w) return;
    waiting.delete(a.id);
    clearTimeout(w.timer);
    if (!a.error) return w.resolve(a.value);
    w.reject(a.error.code ? new DomainError(a.error.code as ErrorCode, a.error.params as never) : new Error(a.error.message));
  });
  channel.on('disconnect', () => {
    for (const [id, w] of waiting) {
      waiting.delete(id);
      clearTimeout(w.timer);
      w.reject(new Error('signed DNS: the cluster primary is gone'));
    }
  });
  const tell = (op: Op, args: unknown[]): void => {
    if (channel.connected) channel.send({ type: ASK, id: ++seq, op, args } satisfies Ask);
  };
  const ask = <T>(op: Op, args: unknown[]): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (!channel.connected) return reject(new Error('signed DNS: the cluster primary is gone'));
      const id = ++seq;
      const bound = op === 'update.execute' ? timeouts.updateMs : timeouts.otherMs;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`signed DNS: the cluster primary did not answer ${op} within ${bound} ms`));
      }, bound);
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      channel.send({ type: ASK, id, op, args } satisfies Ask);
    });
  // An announced arrival is the primary's (its group commit waits for it); here it is a number, released by message.
  const arrivals = new WeakMap<() => void, number>();
  let arrival = 0;
  return {
    tsigKeys: {
      execute: (name) => ask('tsigKeys.execute', [name]),
      firstUse: (keyId, timeSigned, mac) => ask('tsigKeys.firstUse', [keyId, timeSigned, mac]),
    },
    update: {
      arrive: (key, zone) => {
        const n = ++arrival;
        tell('update.arrive', [n, { id: key.id }, zone]);
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          tell('update.release', [n]);
        };
        arrivals.set(release, n);
        return release;
      },
      execute: (key, req, ctx) => {
        const n = ctx.arrived ? arrivals.get(ctx.arrived) : undefined;
        return ask('update.execute', [key, req, { serves: ctx.serves, peer: ctx.peer }, n ?? null]);
      },
    },
    transfer: { execute: (key, zone, ctx) => ask('transfer.execute', [key, zone, { serves: ctx.serves, peer: ctx.peer }]) },
    throttle: {
      admit: (address, identity, mode) => ask('throttle.admit', [address, identity, mode]),
      succeeded: (check) => ask('throttle.succeeded', [check]),
      failed: (check, person) => ask('throttle.failed', [check, person]),
    },
    keyRate: { takeForKey: (keyId) => ask('keyRate.takeForKey', [keyId]) },
  };
};

/** The primary's end of one worker: a node:cluster Worker. */
export interface PrimaryChannel {
  isConnected(): boolean;
  send(message: unknown): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  once(event: 'exit', listener: () => void): unknown;
}

/**
 * In the cluster primary: answers one worker's calls with these use cases (given, or loaded on the first
 * call). Its announced arrivals that are never released (the worker died) are released when it exits.
 */
export const answerSignedUseCases = (worker: PrimaryChannel, source: SignedDnsUseCases | (() => Promise<SignedDnsUseCases>)): void => {
  let uc: SignedDnsUseCases | null = typeof source === 'function' ? null : source;
  let loading: Promise<SignedDnsUseCases> | null = null;
  const load = (): Promise<SignedDnsUseCases> =>
    uc
      ? Promise.resolve(uc)
      : (loading ??= (source as () => Promise<SignedDnsUseCases>)().then(
          (u) => (uc = u),
          (err: unknown) => {
            loading = null; // a failed load is tried again by the next call, not kept for every call after it
            throw err;
          },
        ));
  // Arrivals by the worker's number: the release, or (use cases still loading) the promise of it.
  const arrivals = new Map<number, (() => void) | Promise<() => void>>();
  const release = (n: number): void => {
    const r = arrivals.get(n);
    arrivals.delete(n);
    if (typeof r === 'function') r();
    else void r?.then((f) => f());
  };
  worker.once('exit', () => [...arrivals.keys()].forEach(release));
  const run = async (op: Op, args: unknown[]): Promise<unknown> => {
    const u = uc ?? (await load());
    const a = (i: number): never => args[i] as never;
    switch (op) {
      case 'tsigKeys.execute':
        return u.tsigKeys.execute(a(0));
      case 'tsigKeys.firstUse':
        return u.tsigKeys.firstUse(a(0), a(1), a(2));
      case 'update.execute': {
        const n = args[3] as number | null;
        const arrived = n !== null && arrivals.has(n) ? () => release(n) : undefined;
        return u.update.execute(a(0), a(1), { ...(args[2] as UpdateContext), ...(arrived ? { arrived } : {}) });
      }
      case 'transfer.execute':
        return u.transfer.execute(a(0), a(1), a(2));
      case 'throttle.admit':
        return u.throttle.admit(a(0), a(1), a(2));
      case 'throttle.succeeded':
        return u.throttle.succeeded(a(0));
      case 'throttle.failed':
        return u.throttle.failed(a(0), a(1));
      case 'keyRate.takeForKey':
        return u.keyRate.takeForKey(a(0));
      default:
        throw new Error(`signed DNS: unknown call ${String(op)}`);
    }
  };
  worker.on('message', (m) => {
    const q = m as Ask;
    if (q?.type !== ASK) return;
    // Announcements are answered by nothing, and kept in order with the calls that follow them.
    if (q.op === 'update.arrive') {
      const [n, key, zone] = q.args as [number, { id: string }, string];
      arrivals.set(
        n,
        uc
          ? uc.update.arrive(key, zone)
          : // Use cases that fail to load: nothing arrived, nothing to release (and no unhandled rejection).
            load().then(
              (u) => u.update.arrive(key, zone),
              () => () => undefined,
            ),
      );
      return;
    }
    if (q.op === 'update.release') return release(q.args[0] as number);
    run(q.op, q.args).then(
      (value) => worker.isConnected() && worker.send({ type: ANSWER, id: q.id, value } satisfies Answer),
      (err: unknown) =>
        worker.isConnected() &&
        worker.send({
          type: ANSWER,
          id: q.id,
          error: isDomainError(err)
            ? { code: err.code, params: err.params, message: err.message }
            : { message: String((err as Error)?.message ?? err) },
        } satisfies Answer),
    );
  });
};

/** What SignedMessages offers the nameserver (embedded.adapter.ts's SignedMessageHandler). */
export interface SignedHandler<S> {
  wants(packet: Buffer): boolean;
  truncated(packet: Buffer): Buffer;
  handle(packet: Buffer, transport: Transport, peer: string, server: S): Promise<Buffer[]>;
}

/**
 * A signed message whose handling fails (the store, or a cluster primary that is gone or silent) is
 * answered SERVFAIL — unsigned, as the key may not be known — instead of left for the client to time out.
 */
export const servfailOnError = <S>(inner: SignedHandler<S>, log: { error(obj: object, msg: string): void }): SignedHandler<S> => ({
  wants: (packet) => inner.wants(packet),
  truncated: (packet) => inner.truncated(packet),
  handle: async (packet, transport, peer, server) => {
    try {
      return await inner.handle(packet, transport, peer, server);
    } catch (err) {
      log.error({ err, peer, transport }, 'signed DNS message failed; answered SERVFAIL');
      return [bareReply(packet, RCODE.SERVFAIL, { ede: { code: 0, text: 'internal error' } })];
    }
  },
});
