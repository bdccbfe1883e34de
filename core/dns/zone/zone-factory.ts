import { SERVICE_NAMESERVERS, soaValue, type RecordSet } from './record-set.js';

/** A new zone's serial: today's date with a two-digit counter (RFC 1912 §2.2 convention). */
export const initialSerial = (today: string): number => Number(`${today.replaceAll('-', '')}01`);

/** The service-owned apex records every zone starts with (DESIGN: apex SOA and NS are ours). */
export const apexRecords = (domain: string, serial: number): RecordSet[] => [
  { name: domain, type: 'SOA', ttl: 3600, values: [soaValue(serial)] },
  { name: domain, type: 'NS', ttl: 3600, values: SERVICE_NAMESERVERS.map((n) => `${n}.`) },
];

/** The apex SOA with a new serial. */
export const withSerial = (sets: readonly RecordSet[], domain: string, serial: number): RecordSet[] =>
  sets.map((s) => (s.name === domain && s.type === 'SOA' ? { ...s, values: [soaValue(serial)] } : s));
