export { AxfrClient, presentRecord, type AxfrClientOptions, type AxfrLookup } from './axfr.adapter.js';
