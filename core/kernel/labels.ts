/**
 * A label groups domains so a key can select them all (seed 2.2: "every domain labelled prod"). Labels
 * are lower-case LDH words, like a DNS label, so they read the same in URLs, policies and zone names.
 */
export const LABEL_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export const isLabel = (v: string): boolean => LABEL_RE.test(v);
