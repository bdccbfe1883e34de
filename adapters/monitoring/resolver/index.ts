export { ownDnsResolve } from './own-dns-resolve.adapter.js';
