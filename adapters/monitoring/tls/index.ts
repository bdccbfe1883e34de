export { TlsProbeAdapter, type TlsProbeOptions } from './tls-probe.adapter.js';
