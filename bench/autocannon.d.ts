/** The part of autocannon 8's programmatic API the benchmarks use (the package ships no types). */
declare module 'autocannon' {
  function autocannon(opts: autocannon.Options): Promise<autocannon.Result>;
  namespace autocannon {
    interface Histogram {
      readonly average: number;
      readonly mean: number;
      readonly stddev: number;
      readonly min: number;
      readonly max: number;
      readonly total: number;
      readonly p50: number;
      readonly p90: number;
      readonly p97_5: number;
      readonly p99: number;
    }
    interface Result {
      readonly title?: string;
      readonly url: string;
      readonly requests: Histogram & { readonly sent: number };
      readonly latency: Histogram;
      readonly throughput: Histogram;
      readonly duration: number;
      readonly errors: number;
      readonly timeouts: number;
      readonly mismatches: number;
      readonly non2xx: number;
      readonly resets: number;
      readonly '1xx': number;
      readonly '2xx': number;
      readonly '3xx': number;
      readonly '4xx': number;
      readonly '5xx': number;
      readonly statusCodeStats: Record<string, { count: number }>;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      amount?: number;
      timeout?: number;
      pipelining?: number;
      workers?: number;
      method?: string;
      headers?: Record<string, string>;
      title?: string;
      body?: string;
    }
  }
  export = autocannon;
}
