import type { DnssecState } from './dnssec-state.js';

/** GET/PUT /v1/domains/{domain}/dnssec (DESIGN: DNSSEC). No private key material, ever. */
export interface DnssecView {
  enabled: boolean;
  algorithm: number | null;
  status: string | null;
  ds_at_parent: boolean;
  keys: Array<{
    tag: number;
    algorithm: number;
    flags: number;
    role: string;
    state: string;
    dnskey: string;
    created_at: string;
  }>;
  ds: string[];
  signatures: { inception: string; expiration: string } | null;
}

export const dnssecView = (s: DnssecState | null, window: { inception: number; expiration: number } | null): DnssecView =>
  s === null
    ? { enabled: false, algorithm: null, status: null, ds_at_parent: false, keys: [], ds: [], signatures: null }
    : {
        enabled: true,
        algorithm: s.algorithm,
        status: s.status,
        ds_at_parent: s.dsAtParent,
        keys: s.keys.map((k) => ({
          tag: k.tag,
          algorithm: k.algorithm,
          flags: k.flags,
          role: k.role,
          state: k.state,
          dnskey: `${k.flags} 3 ${k.algorithm} ${k.publicKey}`,
          created_at: k.createdAt.toISOString(),
        })),
        ds: s.keys.filter((k) => k.state === 'active').map((k) => k.ds),
        signatures: window
          ? { inception: new Date(window.inception * 1000).toISOString(), expiration: new Date(window.expiration * 1000).toISOString() }
          : null,
      };
