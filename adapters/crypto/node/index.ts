export { NodeRandom, NodeSecretHasher } from './node-crypto.adapter.js';
