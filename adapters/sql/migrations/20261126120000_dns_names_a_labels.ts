import type { Knex } from 'knex';
import { storableName } from '../../../core/dns/zone/names.js';
import { nextSerial } from '../../../core/dns/zone/serial.js';

/**
 * ACME challenge owners used to be stored as the host was sent, Unicode included: never answered by our
 * server, refused by kzonecheck, and out of reach of any plan (plans resolve names to A-labels). Every
 * stored owner becomes what a plan would store: its A-label form when that passes the name rules (a set
 * already there under that name takes its values), and gone when it never could (such a name was never
 * served). Zones touched get a new serial so secondaries transfer the change.
 */
const NON_ASCII = { sqlite: "name glob '*[^ -~]*'", postgres: "name ~ '[^ -~]'" };

export async function up(knex: Knex): Promise<void> {
  const engine = (knex.client as { dialect?: string }).dialect === 'postgresql' ? 'postgres' : 'sqlite';
  const zones = new Map<string, string>();
  const domainOf = async (zoneId: string): Promise<string | null> => {
    if (!zones.has(zoneId)) {
      const z = (await knex('dns_zones').where({ id: zoneId }).first('domain')) as { domain: string } | undefined;
      zones.set(zoneId, z?.domain ?? '');
    }
    return zones.get(zoneId) || null;
  };
  const touched = new Set<string>();
  const target = async (zoneId: string, name: string): Promise<string | null> => {
    const domain = await domainOf(zoneId);
    if (!domain) return null;
    const s = storableName(`${name}.`, domain);
    return s.ok ? s.name : null;
  };

  const sets = (await knex('dns_record_sets')
    .whereRaw(NON_ASCII[engine])
    .select('zone_id', 'name', 'type', 'ttl', 'record_values')) as Array<{
    zone_id: string;
    name: string;
    type: string;
    ttl: number;
    record_values: string;
  }>;
  for (const s of sets) {
    touched.add(s.zone_id);
    const name = await target(s.zone_id, s.name);
    await knex('dns_record_sets').where({ zone_id: s.zone_id, name: s.name, type: s.type }).delete();
    if (name === null) continue;
    const there = (await knex('dns_record_sets').where({ zone_id: s.zone_id, name, type: s.type }).first('record_values')) as
      { record_values: string } | undefined;
    if (there) {
      const values = [...new Set([...(JSON.parse(there.record_values) as string[]), ...(JSON.parse(s.record_values) as string[])])];
      await knex('dns_record_sets')
        .where({ zone_id: s.zone_id, name, type: s.type })
        .update({ record_values: JSON.stringify(values) });
    } else await knex('dns_record_sets').insert({ ...s, name });
  }

  const challenges = (await knex('acme_challenges').whereRaw(NON_ASCII[engine]).select('id', 'zone_id', 'name')) as Array<{
    id: string;
    zone_id: string;
    name: string;
  }>;
  for (const c of challenges) {
    const name = await target(c.zone_id, c.name);
    if (name === null) await knex('acme_challenges').where({ id: c.id }).delete();
    else await knex('acme_challenges').where({ id: c.id }).update({ name });
  }

  for (const id of touched) {
    const z = (await knex('dns_zones').where({ id }).first('serial')) as { serial: string | number } | undefined;
    if (z)
      await knex('dns_zones')
        .where({ id })
        .update({ serial: nextSerial(Number(z.serial)) });
  }
}

/** Nothing to undo: the A-label names are what the code before this migration should have stored. */
export async function down(): Promise<void> {}
