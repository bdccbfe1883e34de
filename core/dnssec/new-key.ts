import { CSK_FLAGS, dnskeyRdata, keyTag, type DnssecAlgorithm } from './dnskey.js';
import type { DnssecDeps } from './dnssec-deps.js';
import type { DnssecKey } from './dnssec-state.js';

/** A new CSK: generated, its private key sealed at once, its DS computed (SHA-256, RFC 4509). */
export const newCsk = (
  deps: Pick<DnssecDeps, 'crypto' | 'box' | 'random'>,
  domain: string,
  algorithm: DnssecAlgorithm,
  createdAt: Date,
): DnssecKey => {
  const k = deps.crypto.generate(algorithm);
  const rdata = dnskeyRdata(CSK_FLAGS, algorithm, k.publicKey);
  const tag = keyTag(rdata);
  return {
    id: deps.random.id(),
    tag,
    algorithm,
    flags: CSK_FLAGS,
    role: 'csk',
    state: 'active',
    publicKey: k.publicKey,
    sealedPrivateKey: deps.box.seal(k.privateKey),
    ds: `${tag} ${algorithm} 2 ${deps.crypto.dsDigest(domain, rdata)}`,
    createdAt,
  };
};
