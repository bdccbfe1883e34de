import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_CATALOGUE, PUBLIC_EVENT_TYPES, internalTypes } from '../../core/events/catalogue.js';

/** The catalogue covers every EventType (read from the type map's source, so a new one cannot slip by). */
describe('Event catalogue', () => {
  const source = readFileSync(join(import.meta.dirname, '..', '..', 'core', 'kernel', 'events.ts'), 'utf8');
  // EventType is the keys of EventData (type → data shape): read them from its body.
  const map = /export interface EventData \{([\s\S]*?)\n\}/.exec(source)![1]!;
  const types = [...map.matchAll(/^\s*'([a-z_]+\.[a-z_]+)':/gm)].map((m) => m[1]!);

  it('has an entry for every EventType, and nothing else', () => {
    expect(types.length).to.be.greaterThan(20);
    const missing = types.filter((t) => !Object.hasOwn(EVENT_CATALOGUE, t));
    expect(missing, 'add these to core/events/catalogue.ts').to.deep.equal([]);
    expect(Object.keys(EVENT_CATALOGUE).filter((t) => !types.includes(t))).to.deep.equal([]);
  });

  it('public names are <resource>.<verb>, unique, with real uk and en descriptions; internal ones are kept out', () => {
    const names = Object.values(EVENT_CATALOGUE)
      .map((i) => i.public)
      .filter(Boolean);
    expect(new Set(names).size).to.equal(names.length);
    for (const [t, i] of Object.entries(EVENT_CATALOGUE)) {
      if (i.public) expect(i.public).to.match(/^[a-z]+\.[a-z_]+$/);
      expect(i.describe.uk, t).to.match(/[а-яіїєґ]/i);
      expect(i.describe.en, t).to.match(/[a-z]/);
    }
    expect(EVENT_CATALOGUE['billing.topup_succeeded'].public).to.equal('billing.topped_up');
    for (const t of ['person.signed_in', 'certificate.private_key_read', 'account.created'] as const)
      expect(EVENT_CATALOGUE[t].public).to.equal(null);
    expect(PUBLIC_EVENT_TYPES.get('billing.topped_up')).to.equal('billing.topup_succeeded');
    expect(internalTypes(['person.signed_in'])).to.equal(null);
    expect(internalTypes(['*'])).to.not.include('person.signed_in');
  });
});
