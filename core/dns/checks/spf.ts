import type { RecordSet } from '../zone/record-set.js';

/** A TXT value that is an SPF policy (RFC 7208 §4.5: "v=spf1" followed by a space or the end). */
export const isSpf = (text: string): boolean => /^v=spf1(?: |$)/i.test(text);

export const spfValues = (set: RecordSet | undefined): string[] => (set ? set.values.filter(isSpf) : []);
