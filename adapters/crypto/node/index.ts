export { NodeRandom, NodeSecretHasher } from './node-crypto.adapter.js';
export { AesGcmSecretBox } from './secret-box.adapter.js';
export { NodeDnssecCrypto } from './dnssec-crypto.adapter.js';
