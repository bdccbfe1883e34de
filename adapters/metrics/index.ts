import { createServer, type Server } from 'node:http';
import {
  AggregatorRegistry,
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type MetricObjectWithValues,
  type MetricValue,
} from 'prom-client';

/**
 * Prometheus metrics (prom-client). Names follow the Prometheus conventions: a `domivka_` prefix, base
 * units (`_seconds`, `_bytes`), `_total` on counters, and only bounded label values — a route template,
 * never a path; a job or call name, never a domain, key or account. Core knows nothing of this: the
 * composition root hands these objects to the adapters and wraps ports with them (src/metrics.ts).
 */
export type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

const OPCODES = ['query', 'iquery', 'status', 'opcode3', 'notify', 'update', 'opcode6', 'opcode7'];
const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED', 'YXDOMAIN', 'YXRRSET', 'NXRRSET', 'NOTAUTH', 'NOTZONE'];
const TRANSPORTS = ['udp', 'tcp'] as const;
/** The latency buckets of calls to peers and of the API: 5 ms … 30 s. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * DNS counters (the embedded server's observer, matched by shape: adapters do not import each other), kept as plain integers on the hot path (a query costs two array increments) and
 * copied into the registry when it is scraped.
 */
export class DnsMetrics {
  /** [transport][opcode][rcode] */
  private readonly answers = new Float64Array(2 * 16 * 16);
  private readonly cache = new Float64Array(2);
  private readonly transfers = { AXFR: 0, IXFR: 0 };
  private notifies = 0;

  constructor(registry: Registry) {
    // collect() runs with the metric as `this`; the figures are read from these arrays.
    const { answers, cache, transfers } = this;
    const notifies = () => this.notifies;
    new Counter({
      name: 'domivka_dns_responses_total',
      help: 'DNS replies sent, by opcode and rcode of the reply and by transport.',
      labelNames: ['opcode', 'rcode', 'transport'],
      registers: [registry],
      collect() {
        this.reset();
        for (let t = 0; t < 2; t++)
          for (let op = 0; op < 16; op++)
            for (let rc = 0; rc < 16; rc++) {
              const n = answers[(t * 16 + op) * 16 + rc]!;
              if (n > 0)
                this.inc({ opcode: OPCODES[op] ?? `opcode${op}`, rcode: RCODES[rc] ?? `rcode${rc}`, transport: TRANSPORTS[t]! }, n);
            }
      },
    });
    new Counter({
      name: 'domivka_dns_answer_cache_lookups_total',
      help: 'UDP queries looked up in the answer cache, by result (hit or miss); hit ratio = hit / (hit + miss).',
      labelNames: ['result'],
      registers: [registry],
      collect() {
        this.reset();
        this.inc({ result: 'hit' }, cache[0]!);
        this.inc({ result: 'miss' }, cache[1]!);
      },
    });
    new Counter({
      name: 'domivka_dns_zone_transfers_total',
      help: 'Zone transfers served to secondaries, by type (AXFR, IXFR).',
      labelNames: ['type'],
      registers: [registry],
      collect() {
        this.reset();
        this.inc({ type: 'AXFR' }, transfers.AXFR);
        this.inc({ type: 'IXFR' }, transfers.IXFR);
      },
    });
    new Counter({
      name: 'domivka_dns_notifies_sent_total',
      help: 'Zone changes NOTIFYed to the secondaries (one per change, whatever the number of secondaries).',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(notifies());
      },
    });
    // The DNS server's own counters (response rate limiting, internal errors) join here, each as a
    // Counter with a collect() reading the server's figures, like the ones above.
  }

  answered(reply: Uint8Array, offset: number, transport: 'udp' | 'tcp', cached: boolean): void {
    const opcode = (reply[offset + 2]! >> 3) & 0xf;
    const rcode = reply[offset + 3]! & 0xf;
    this.answers[((transport === 'udp' ? 0 : 1) * 16 + opcode) * 16 + rcode]!++;
    if (transport === 'udp') this.cache[cached ? 0 : 1]!++;
  }

  transferred(type: 'AXFR' | 'IXFR'): void {
    this.transfers[type]++;
  }

  notified(): void {
    this.notifies++;
  }
}

/** The metrics of one process: Node's defaults plus what this process does. */
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'route' | 'method' | 'status_class'>;
  readonly jobRuns: Counter<'job' | 'outcome'>;
  readonly jobDuration: Histogram<'job'>;
  readonly workerLag: Gauge;
  readonly webhookDeliveries: Counter<'outcome'>;
  readonly webhookDuration: Histogram<'outcome'>;
  readonly peerCalls: Histogram<'peer' | 'environment' | 'operation' | 'outcome'>;
  readonly peerErrors: Counter<'peer' | 'environment' | 'operation'>;
  readonly draining: Gauge;
  private dnsMetrics: DnsMetrics | null = null;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.httpDuration = new Histogram({
      name: 'domivka_http_request_duration_seconds',
      help: 'API requests, by route template, method and status class (2xx, 4xx, 5xx …).',
      labelNames: ['route', 'method', 'status_class'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.jobRuns = new Counter({
      name: 'domivka_worker_job_runs_total',
      help: "The worker's job runs, by job and outcome (ok, error).",
      labelNames: ['job', 'outcome'],
      registers,
    });
    this.jobDuration = new Histogram({
      name: 'domivka_worker_job_duration_seconds',
      help: "How long each of the worker's jobs ran.",
      labelNames: ['job'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.workerLag = new Gauge({
      name: 'domivka_worker_pass_lag_seconds',
      help: "How late the worker's last pass started after it was due (a slow pass delays the next).",
      registers,
    });
    this.webhookDeliveries = new Counter({
      name: 'domivka_webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome (success, http_error, timeout, network, refused).',
      labelNames: ['outcome'],
      registers,
    });
    this.webhookDuration = new Histogram({
      name: 'domivka_webhook_delivery_duration_seconds',
      help: 'Webhook delivery attempts: time to the endpoint’s answer, by outcome.',
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.peerCalls = new Histogram({
      name: 'domivka_peer_call_duration_seconds',
      help: 'Calls to the registry, the payment provider and the certificate authority, by peer, environment, operation and outcome (ok, error).',
      labelNames: ['peer', 'environment', 'operation', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.peerErrors = new Counter({
      name: 'domivka_peer_call_errors_total',
      help: 'Calls to the registry, the payment provider and the certificate authority that failed, by peer, environment and operation.',
      labelNames: ['peer', 'environment', 'operation'],
      registers,
    });
    this.draining = new Gauge({
      name: 'domivka_draining',
      help: '1 while the process is shutting down (readiness false), else 0.',
      registers,
    });
  }

  /** The DNS counters of this process (created on first use). */
  dns(): DnsMetrics {
    return (this.dnsMetrics ??= new DnsMetrics(this.registry));
  }

  /**
   * A gauge read at scrape time from something slower (the store). `aggregator` says how a process group
   * combines it: 'max' when every process reads the same shared figure.
   */
  asyncGauge(
    name: string,
    help: string,
    labelNames: string[],
    read: () => Promise<Array<[Record<string, string>, number]>>,
    aggregator: 'sum' | 'max' | 'first' = 'max',
  ): void {
    new Gauge({
      name,
      help,
      labelNames,
      aggregator,
      registers: [this.registry],
      async collect() {
        const values = await read();
        this.reset();
        for (const [labels, v] of values) this.set(labels, v);
      },
    });
  }

  /** A gauge read at scrape time. */
  gauge(name: string, help: string, labelNames: string[], read: () => Array<[Record<string, string>, number]>): void {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [labels, v] of read()) this.set(labels, v);
      },
    });
  }
}

/** "2xx", "4xx" …: a bounded label for an HTTP status. */
export const statusClass = (status: number): string => `${Math.floor(status / 100)}xx`;

/** One text exposition of several processes' metrics (this one's and its DNS workers'), summed by prom-client's cluster rules. */
export const aggregate = async (parts: MetricsJson[]): Promise<string> => AggregatorRegistry.aggregate(parts).metrics();

/**
 * Serves `GET /metrics` on host:port. `collect` gives the exposition text (this process's registry, or
 * the aggregate of its process group). A port already taken is logged, not fatal: the API and DNS go on.
 */
export const serveMetrics = async (
  host: string,
  port: number,
  collect: () => Promise<string>,
  onError: (err: Error) => void,
): Promise<Server | null> => {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    collect().then(
      (text) => res.writeHead(200, { 'content-type': Registry.PROMETHEUS_CONTENT_TYPE }).end(text),
      (err: Error) => {
        onError(err);
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  return new Promise((resolve) => {
    server.once('error', (err) => {
      onError(err);
      resolve(null);
    });
    server.listen(port, host, () => resolve(server));
  });
};
