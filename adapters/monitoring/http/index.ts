export { HttpProbeAdapter, type HttpProbeOptions } from './http-probe.adapter.js';
