export { AxfrClient, presentRecord, type AxfrClientOptions, type AxfrLookup, type AxfrSigner } from './axfr.adapter.js';
