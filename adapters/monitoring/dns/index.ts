export { DnsProbeAdapter, normalizeValue, type DnsProbeOptions } from './dns-probe.adapter.js';
