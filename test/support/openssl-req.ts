/** A new key as `openssl req` makes it: RSA of a size, or EC on a named curve. */
export type NewKey = 'rsa:1024' | 'rsa:2048' | 'ec:P-256' | 'ec:P-384' | 'ed25519';

/**
 * Arguments for `openssl req`: a new unencrypted key and a certificate request, or with `x509` a
 * self-signed certificate; `san` is the subjectAltName value (`DNS:a.example,IP:192.0.2.1`), `extra`
 * any further options (`-set_serial`, `-addext` of other extensions).
 */
export function reqArgs(o: {
  x509?: boolean;
  key: NewKey;
  keyout: string;
  out: string;
  subj: string;
  san?: string;
  days?: number;
  extra?: readonly string[];
}): string[] {
  const newkey = o.key.startsWith('ec:') ? ['-newkey', 'ec', '-pkeyopt', `ec_paramgen_curve:${o.key.slice(3)}`] : ['-newkey', o.key];
  return [
    'req',
    o.x509 ? '-x509' : '-new',
    ...newkey,
    '-nodes',
    '-keyout',
    o.keyout,
    '-out',
    o.out,
    ...(o.days !== undefined ? ['-days', String(o.days)] : []),
    ...(o.extra ?? []),
    '-subj',
    o.subj,
    ...(o.san ? ['-addext', `subjectAltName=${o.san}`] : []),
  ];
}
