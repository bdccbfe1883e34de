/**
 * Group commit of DNS UPDATEs, the queue and its policy. It lives in the core, beside ApplyDnsUpdate, and
 * not in the DNS adapter: what may be coalesced and how (one key's messages to one zone, judged in arrival
 * order, each with its own rcode, answered after the one commit) is RFC 2136 semantics and the plan path's
 * attribution, not transport — UDP and TCP messages, from any connection, join the same batch, and the
 * adapter keeps only what is the wire's (TSIG, replay, the rate limit, rcodes on the wire). No timer: a
 * message never waits for company. A queue's commit starts two turns of the event loop after its first
 * message, or more while each turn brings company, up to MAX_TURNS (setImmediate: what is already read off
 * the sockets is dispatched and joins — with SQLite a message's whole path runs without yielding, so
 * without those turns no two messages would ever meet; and Node reads a TCP connection's first message
 * one turn after it accepts the connection, so with one turn a message on a connection accepted in it
 * would wait for the next commit: over TCP with four clients every batch was one message), and once the
 * messages announced as arriving for that queue (`arrive`: signed and verified, on their way through the
 * replay claim and the key's checks) have joined or been answered; those that arrive while a commit is
 * in progress form the next batch, taken whole when it ends (up to a bound).
 *
 * Within one process: several DNS workers each batch their own messages and still meet at the zone's serial
 * compare-and-set, as single messages did.
 */

/** The most messages one commit takes: one huge batch cannot hold a queue (or the zone) for long. */
export const MAX_BATCH = 100;

/**
 * Turns of the event loop a commit waits for company: at least MIN_TURNS (Node reads a TCP connection's
 * first message one turn after it accepts the connection), at most MAX_TURNS (a steady stream of
 * messages does not hold the one that came first for long).
 */
export const MIN_TURNS = 2;
export const MAX_TURNS = 8;

/** The batching policy (pure): the next batch is the oldest waiting messages, in arrival order, at most `max`. */
export const nextBatch = <T>(waiting: T[], max: number = MAX_BATCH): T[] => waiting.splice(0, Math.max(1, max));

interface Waiting<I, O> {
  readonly item: I;
  readonly resolve: (o: O) => void;
  readonly reject: (e: unknown) => void;
}

/**
 * Keyed queues, each drained by one commit at a time. `commit` gets a batch in arrival order and answers
 * one outcome per item, in the same order, once the batch is durably committed; if it throws, every
 * item of that batch gets the error (nothing of it was committed: the batch is one transaction).
 */
export class GroupCommit<I, O> {
  private readonly queues = new Map<string, Waiting<I, O>[]>();
  /** Per queue: the messages announced and not yet submitted or answered (each settles when released). */
  private readonly arriving = new Map<string, Set<Promise<void>>>();

  constructor(
    private readonly commit: (batch: readonly I[]) => Promise<readonly O[]>,
    private readonly max: number = MAX_BATCH,
  ) {}

  /**
   * A message for `queue` is on its way (its checks take a few store round trips): the queue's next commit
   * waits for it. The returned release is idempotent; submit calls it, and so must whoever answers the message without submitting it.
   */
  arrive(queue: string): () => void {
    let release!: () => void;
    const settled = new Promise<void>((resolve) => (release = resolve));
    const set = this.arriving.get(queue) ?? new Set();
    set.add(settled);
    this.arriving.set(queue, set);
    return () => {
      release();
      set.delete(settled);
      if (set.size === 0 && this.arriving.get(queue) === set) this.arriving.delete(queue);
    };
  }

  /** How many messages of `queue` have joined or are announced (it only grows while a batch gathers). */
  private company(queue: string, waiting: readonly unknown[]): number {
    return waiting.length + (this.arriving.get(queue)?.size ?? 0);
  }

  /** Resolves once the messages announced for `queue` so far have joined or been answered (later ones are not waited for: no starving). */
  private settled(queue: string): Promise<unknown> {
    const set = this.arriving.get(queue);
    return set ? Promise.all([...set]) : Promise.resolve();
  }

  submit(queue: string, item: I, arrived?: () => void): Promise<O> {
    arrived?.();
    return new Promise<O>((resolve, reject) => {
      const waiting = this.queues.get(queue);
      if (waiting) {
        waiting.push({ item, resolve, reject });
        return;
      }
      // No commit of this queue in progress: this message starts one (the queue's entry marks it in progress).
      this.queues.set(queue, [{ item, resolve, reject }]);
      void this.drain(queue);
    });
  }

  /** Waiting batches of this queue, in turn, until it is empty. */
  private async drain(queue: string): Promise<void> {
    const waiting = this.queues.get(queue)!;
    while (waiting.length > 0) {
      // Two turns at least (a TCP connection accepted in the first turn is read in the second), then more
      // while the last one brought company (messages read meanwhile), up to MAX_TURNS: never a timer.
      let seen = this.company(queue, waiting);
      for (let turn = 0; turn < MAX_TURNS && waiting.length < this.max; turn++) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        const now = this.company(queue, waiting);
        if (turn >= MIN_TURNS - 1 && now === seen) break;
        seen = now;
      }
      if (waiting.length < this.max) await this.settled(queue);
      const batch = nextBatch(waiting, this.max);
      try {
        const outcomes = await this.commit(batch.map((w) => w.item));
        batch.forEach((w, i) => w.resolve(outcomes[i]!));
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.queues.delete(queue);
  }
}
