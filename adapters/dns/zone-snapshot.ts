import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * A small unsigned zone as a DNS server held it (embedded.adapter.ts, DormantZone): its record sets as one
 * short text, the version (zone id and serial) that text is, and its record count.
 */
export interface HeldText {
  readonly id: string;
  readonly domain: string;
  readonly serial: number;
  /** The version's stamp (ZoneRepository.versionStamps): its serial and when the commit that made it was written. */
  readonly stamp: string;
  readonly text: string;
  readonly records: number;
}

/**
 * What the file holds is written for this format: a server never takes a text written for another. Bump it
 * whenever what a held text means, or what a zone is checked for before it is held, changes.
 */
const FORMAT = 2;

type Row = [id: string, domain: string, serial: number, stamp: string, text: number, records: number];

/**
 * The small unsigned zones a DNS server held, kept in a file (VAR_DIR) for its next start: a DNS worker that
 * starts on an account of 10,000 zones takes each zone whose version the store still names — the same zone
 * id at the same serial — from the file instead of reading its record sets from the store and checking them
 * again. The store stays the authority: which zones exist, are served, and at what serial, is read from it
 * at every start; the file only saves reading and checking what a version holds. A version is its zone id,
 * serial and stamp (when the commit that made the serial was written): every commit moves the serial (as DNS
 * requires of a zone its secondaries copy), and a store restored from a backup that makes a serial again
 * makes it at another moment. A change made by hand in SQL that moves neither is not seen (nor by a
 * secondary): delete the file, or commit through the service.
 *
 * Written whole to a temporary file, then renamed over the old one (a reader sees one file or the other);
 * the body's SHA-256 is checked on reading, and a file that fails any check is not used at all.
 */
export class ZoneSnapshot {
  /** The rows read, by zone id (as parsed: no object made per zone), and the texts they point into. */
  private kept = new Map<string, Row>();
  private texts: readonly string[] = [];

  constructor(readonly path: string) {}

  /** Reads the file (once; again after `clear`); the number of zones it holds, 0 when there is none or it cannot be used (`problem`). */
  read(): { zones: number; problem: string | null } {
    this.clear();
    let raw: Buffer;
    try {
      raw = readFileSync(this.path);
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      return { zones: 0, problem: missing ? null : `unreadable: ${(err as Error).message}` };
    }
    const nl = raw.indexOf(10);
    try {
      const head = JSON.parse(raw.toString('utf8', 0, nl)) as { format?: unknown; sha256?: unknown };
      if (head.format !== FORMAT) return { zones: 0, problem: `format ${String(head.format)}, not ${FORMAT}` };
      const body = raw.subarray(nl + 1);
      if (createHash('sha256').update(body).digest('hex') !== head.sha256) return { zones: 0, problem: 'checksum mismatch' };
      const { texts, zones } = JSON.parse(body.toString('utf8')) as { texts: unknown; zones: unknown };
      if (!Array.isArray(texts) || !Array.isArray(zones) || !texts.every((t) => typeof t === 'string'))
        return { zones: 0, problem: 'not a snapshot' };
      for (const z of zones as unknown[]) {
        const row = z as Row;
        const [id, domain, serial, stamp, text, records] = row;
        if (
          !Array.isArray(z) ||
          typeof id !== 'string' ||
          typeof domain !== 'string' ||
          !Number.isInteger(serial) ||
          typeof stamp !== 'string' ||
          typeof texts[text] !== 'string' ||
          !Number.isInteger(records)
        ) {
          this.clear();
          return { zones: 0, problem: 'not a snapshot' };
        }
        this.kept.set(id, row);
      }
      this.texts = texts as string[];
    } catch {
      this.clear();
      return { zones: 0, problem: 'not a snapshot' };
    }
    return { zones: this.kept.size, problem: null };
  }

  /** The text of zone `id` as `domain` at `serial` and `stamp`, if the file holds that very version (each is taken once). */
  take(id: string, domain: string, serial: number, stamp: string | undefined): { text: string; records: number } | null {
    const k = this.kept.get(id);
    if (!k) return null;
    this.kept.delete(id);
    return k[1] === domain && k[2] === serial && k[3] === stamp ? { text: this.texts[k[4]]!, records: k[5] } : null;
  }

  /** Lets go of what was read and not taken. */
  clear(): void {
    this.kept = new Map();
    this.texts = [];
  }

  /** Writes these zones as the file (equal texts once). */
  write(zones: Iterable<HeldText>): number {
    const texts: string[] = [];
    const index = new Map<string, number>();
    const rows: Row[] = [];
    for (const z of zones) {
      let i = index.get(z.text);
      if (i === undefined) index.set(z.text, (i = texts.push(z.text) - 1));
      rows.push([z.id, z.domain, z.serial, z.stamp, i, z.records]);
    }
    const body = JSON.stringify({ texts, zones: rows });
    const head = JSON.stringify({ format: FORMAT, sha256: createHash('sha256').update(body).digest('hex') });
    const tmp = `${this.path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      writeFileSync(tmp, `${head}\n${body}`, { mode: 0o600 });
      renameSync(tmp, this.path);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
    return rows.length;
  }
}
