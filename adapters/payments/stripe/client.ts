import Stripe from 'stripe';

/**
 * The Stripe SDK client and its validated configuration (STYLE 4: the constructor validates config; the
 * factory that reads the environment lives in src/, never here).
 */
export interface StripePaymentsConfig {
  /** A secret (`sk_test_…`, `sk_live_…`) or restricted (`rk_…`) key; never a publishable `pk_…` key. */
  readonly secretKey: string;
  /**
   * Where the API is, default `https://api.stripe.com`. Plain `http` only for a loopback peer such as
   * stripe-mock (`http://localhost:12111`): a secret key never crosses a network in clear text.
   */
  readonly apiBase?: string;
  /** Per-request timeout, default 30 000 ms (the SDK's own default is 80 s — too long inside an API call). */
  readonly timeoutMs?: number;
  /**
   * Automatic retries of connection errors, 409 and 5xx, default 2. Safe because every charge carries an
   * Idempotency-Key: a retry gets Stripe's stored response, never a second charge.
   */
  readonly maxNetworkRetries?: number;
}

export interface ValidStripeConfig {
  readonly secretKey: string;
  readonly protocol: 'http' | 'https';
  readonly host: string;
  readonly port: number;
  readonly timeoutMs: number;
  readonly maxNetworkRetries: number;
}

export const STRIPE_API_BASE = 'https://api.stripe.com';
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_NETWORK_RETRIES = 2;

const SECRET_KEY = /^(sk|rk)_(test|live)_[0-9A-Za-z]{8,}$/;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

const fail = (what: string): never => {
  throw new Error(`StripePayments config: ${what}`);
};

export const validateStripeConfig = (config: StripePaymentsConfig): ValidStripeConfig => {
  if (typeof config !== 'object' || config === null) fail('a config object is required');
  const { secretKey, apiBase = STRIPE_API_BASE, timeoutMs = DEFAULT_TIMEOUT_MS, maxNetworkRetries = DEFAULT_MAX_NETWORK_RETRIES } = config;

  if (typeof secretKey !== 'string' || secretKey === '') fail('secretKey is required');
  if (secretKey.startsWith('pk_')) fail('secretKey is a publishable key (pk_…); a secret key (sk_…) or restricted key (rk_…) is needed');
  if (!SECRET_KEY.test(secretKey)) fail('secretKey must look like sk_test_…, sk_live_…, rk_test_… or rk_live_…');

  let url: URL;
  try {
    url = new URL(apiBase);
  } catch {
    return fail(`apiBase is not a URL: ${JSON.stringify(apiBase)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`apiBase must be https, got ${url.protocol}`);
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname))
    fail('apiBase may use plain http only on a loopback host (e.g. stripe-mock)');
  if (url.username || url.password) fail('apiBase must not carry credentials');
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash)
    fail('apiBase is an origin only (no path, query or fragment): the SDK adds /v1/…');

  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 600_000) fail('timeoutMs must be an integer from 1 to 600000');
  if (!Number.isSafeInteger(maxNetworkRetries) || maxNetworkRetries < 0 || maxNetworkRetries > 10)
    fail('maxNetworkRetries must be an integer from 0 to 10');

  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return {
    secretKey,
    protocol,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : protocol === 'https' ? 443 : 80,
    timeoutMs,
    maxNetworkRetries,
  };
};

/** The SDK client. Its API version is the one this SDK major was built for (types match it). */
export const createStripeClient = (config: ValidStripeConfig): Stripe =>
  new Stripe(config.secretKey, {
    host: config.host,
    port: config.port,
    protocol: config.protocol,
    timeout: config.timeoutMs,
    maxNetworkRetries: config.maxNetworkRetries,
    telemetry: false,
    appInfo: { name: 'domivka' },
  });
