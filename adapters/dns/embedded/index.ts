export { EmbeddedNameserver, type Transport } from './embedded.adapter.js';
export type { EmbeddedNameserverConfig, NameserverLogger } from './config.js';
export { DEFAULT_NOTIFY_TIMING, type NotifyTiming } from './notifier.js';
