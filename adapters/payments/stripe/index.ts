export { StripePayments } from './stripe.adapter.js';
export {
  DEFAULT_MAX_NETWORK_RETRIES,
  DEFAULT_TIMEOUT_MS,
  STRIPE_API_BASE,
  validateStripeConfig,
  type StripePaymentsConfig,
} from './client.js';
export { StripeCardSetup } from './card-setup.adapter.js';
