import type { StoredSignature, StoredSignatures, ZoneSignatureRepository } from '../../../core/dns/ports/zone-signature-repository.port.js';
import type { ChangeAnnouncer } from '../../../core/kernel/change-feed.port.js';
import { iso, json, parse, rawRows } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

type Db = ReturnType<KnexUnitOfWork['db']>;
const isPostgres = (db: Db): boolean => (db.client as { dialect?: string }).dialect === 'postgresql';

/**
 * A 100 000-record zone has some 200 000 signatures: they are read as one flat JSON array (rrset, key tag,
 * digest, RDATA, …) built by the database, and written from one JSON array per chunk, as the record sets
 * are (dns.repository.ts).
 */
const READ_SQL = {
  sqlite:
    `select '[' || coalesce(group_concat(json_quote(rrset) || ',' || key_tag || ',' || json_quote(digest) || ',' || json_quote(rdata), ','), '') || ']' as rows ` +
    'from dnssec_signatures where zone_id = ? and generation > ?',
  postgres:
    `select '[' || coalesce(string_agg(to_json(rrset)::text || ',' || key_tag::text || ',' || to_json(digest)::text || ',' || to_json(rdata)::text, ','), '') || ']' as rows ` +
    'from dnssec_signatures where zone_id = ? and generation > ?',
};
const PUT_SQL = {
  sqlite:
    'insert into dnssec_signatures (zone_id, rrset, key_tag, digest, rdata, generation) ' +
    'select ?, value ->> 0, value ->> 1, value ->> 2, value ->> 3, ? from json_each(?) where true',
  postgres:
    'insert into dnssec_signatures (zone_id, rrset, key_tag, digest, rdata, generation) ' +
    'select ?::text, r ->> 0, (r ->> 1)::integer, r ->> 2, r ->> 3, ?::integer from json_array_elements(?::json) as r',
};
const UPSERT =
  ' on conflict (zone_id, rrset, key_tag) do update set digest = excluded.digest, rdata = excluded.rdata, generation = excluded.generation';
const DROP_SQL = {
  sqlite: 'delete from dnssec_signatures where zone_id = ? and (rrset, key_tag) in (select value ->> 0, value ->> 1 from json_each(?))',
  postgres:
    'delete from dnssec_signatures where zone_id = ? and (rrset, key_tag) in (select r ->> 0, (r ->> 1)::integer from json_array_elements(?::json) as r)',
};
const CHUNK = 20_000;

export class SqlZoneSignatureRepository implements ZoneSignatureRepository {
  constructor(
    private readonly uow: KnexUnitOfWork,
    private readonly announcer: ChangeAnnouncer | null = null,
  ) {}

  async read(zoneId: string, after = -1): Promise<StoredSignatures | null> {
    // One transaction: the generation and the rows it covers are read together.
    return this.uow.transaction(async () => {
      const db = this.uow.db();
      const v: { serial: string | number; generation: string | number } | undefined = await db('dnssec_signed_versions')
        .where({ zone_id: zoneId })
        .first('serial', 'generation');
      if (!v) return null;
      const [row] = await rawRows<{ rows: string }>(db, READ_SQL[isPostgres(db) ? 'postgres' : 'sqlite'], [zoneId, after]);
      const flat = parse<Array<string | number>>(row?.rows ?? '[]');
      const signatures: StoredSignature[] = new Array(flat.length / 4);
      for (let i = 0, k = 0; i < flat.length; i += 4, k++)
        signatures[k] = {
          rrset: flat[i] as string,
          keyTag: Number(flat[i + 1]),
          digest: flat[i + 2] as string,
          rdata: flat[i + 3] as string,
        };
      return { generation: Number(v.generation), serial: Number(v.serial), signatures };
    });
  }

  async store(
    zoneId: string,
    expected: number,
    serial: number,
    put: readonly StoredSignature[],
    drop: ReadonlyArray<{ rrset: string; keyTag: number }>,
  ): Promise<number | null> {
    return this.uow.transaction(async () => {
      const db = this.uow.db();
      const engine = isPostgres(db) ? 'postgres' : 'sqlite';
      const generation = expected + 1;
      const at = iso(new Date());
      if (expected < 0) {
        // The first signer inserts the version row; a second one finds it there and loses.
        const inserted = await db('dnssec_signed_versions')
          .insert({ zone_id: zoneId, serial, generation, signed_at: at })
          .onConflict('zone_id')
          .ignore()
          .returning('zone_id');
        if (inserted.length === 0) return null;
      } else {
        const n = await db('dnssec_signed_versions')
          .where({ zone_id: zoneId, generation: expected })
          .update({ serial, generation, signed_at: at });
        if (n === 0) return null;
      }
      for (let i = 0; i < drop.length; i += CHUNK)
        await db.raw(DROP_SQL[engine], [zoneId, json(drop.slice(i, i + CHUNK).map((d) => [d.rrset, d.keyTag]))]);
      for (let i = 0; i < put.length; i += CHUNK)
        await db.raw(PUT_SQL[engine] + UPSERT, [
          zoneId,
          generation,
          json(put.slice(i, i + CHUNK).map((s) => [s.rrset, s.keyTag, s.digest, s.rdata])),
        ]);
      await this.announcer?.announce('zone', zoneId);
      return generation;
    });
  }

  async clear(zoneId: string): Promise<void> {
    await this.uow.transaction(async () => {
      const db = this.uow.db();
      await db('dnssec_signatures').where({ zone_id: zoneId }).delete();
      await db('dnssec_signed_versions').where({ zone_id: zoneId }).delete();
    });
  }
}
