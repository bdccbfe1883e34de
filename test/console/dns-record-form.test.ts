import { expect } from 'chai';
import { DEFAULT_TTL } from '../../core/dns/plans/plan-builder.js';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';
import { consoleHttp, hiddenField, type ConsoleAnswer } from './http.js';

/**
 * The DNS record form says the same things the same way for every record type, new or changed: the same
 * labels and hints (each tied to its field), the values' placeholder and hint of the type, the API's default
 * TTL (an empty TTL means it, or the set's own TTL on a change); a changed set shows its name as the records
 * table does and its type as the list of types does. A mistake is named next to the field it is about —
 * whether the API's schema or the plan's checks found it — and everything typed stays in the form. The
 * zone's applied plans are listed newest first.
 */
const ZONE = 'domivka-demo.com.ua';
const EDITOR = `/console/domains/${ZONE}/dns`;
const FIELDS = ['name', 'type', 'ttl', 'values'] as const;
type Field = (typeof FIELDS)[number];

eachStore('Console: the DNS record form, the same for every type', (kind) => {
  let api: TestApi;
  let cookie = '';
  before(async function () {
    this.timeout(60_000);
    api = await startApi(kind);
    cookie = await api.signIn();
  });
  after(async () => {
    await api?.close();
  });

  const get = (path: string, lang: 'uk' | 'en' = 'en') => consoleHttp(api).get(path, cookie, lang);
  const unescape = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  /** The record form alone (the page holds other forms: the ACME values, the zone file). */
  const form = (page: ConsoleAnswer) => {
    const from = page.text.indexOf('id="record-form"');
    expect(from, page.text.slice(0, 500)).to.be.above(0);
    return page.text.slice(from, page.text.indexOf('</section>', from));
  };
  /** A field's element (the visible one, by id) with its attributes. */
  const element = (f: string, field: Field) =>
    new RegExp(`<(input|select|textarea)\\s+id="rec-${field}"[^>]*>`).exec(f.replace(/\s+/g, ' '))?.[0] ?? '';
  const attr = (el: string, name: string) => {
    const m = new RegExp(`\\s${name}="([^"]*)"`).exec(el);
    return m ? unescape(m[1]!) : null;
  };
  const hint = (f: string, field: Field) =>
    unescape(
      (new RegExp(`<p class="hint" id="rec-${field}-hint">([\\s\\S]*?)</p>`).exec(f)?.[1] ?? '')
        .replace(/<[^>]+>/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    );
  const problemAt = (f: string, field: Field) =>
    unescape(new RegExp(`<p class="field-error" id="rec-${field}-error">([\\s\\S]*?)</p>`).exec(f)?.[1]?.trim() ?? '');
  const textarea = (f: string) => unescape(/<textarea id="rec-values"[^>]*>([\s\S]*?)<\/textarea/.exec(f)?.[1] ?? '');
  const labels = (f: string) => [...f.matchAll(/<label for="rec-(\w+)">([^<]*)<\/label>/g)].map((m) => `${m[1]}:${m[2]!.trim()}`);

  /** What every record form has, new or changed, whatever the type. */
  const sameShape = (f: string, type: string) => {
    expect(labels(f)).to.deep.equal(['name:Name', 'type:Type', 'ttl:TTL (seconds)', 'values:Values']);
    for (const field of FIELDS) {
      const described = attr(element(f, field), 'aria-describedby') ?? '';
      expect(described.split(' '), `${type}: ${field} is tied to its hint`).to.include(`rec-${field}-hint`);
      expect(hint(f, field), `${type}: ${field} has a hint`).not.to.equal('');
    }
    const example = /<code id="rec-values-example">([^<]*)<\/code>/.exec(f)?.[1];
    expect(example, `${type}: an example`).to.be.a('string').and.not.equal('');
    expect(attr(element(f, 'values'), 'placeholder'), `${type}: the example is the placeholder too`).to.equal(unescape(example!));
    expect(hint(f, 'values')).to.match(type === 'CNAME' || type === 'DNAME' ? /; one value only\./ : /; one value per line\./);
  };

  it('a new set of each type: the same labels, hints tied to their fields, the type’s example as placeholder, the API’s default TTL', async () => {
    for (const type of ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SPF', 'SRV', 'CAA', 'DNAME', 'PTR']) {
      const f = form(await get(`${EDITOR}?add=1&type=${type}`));
      sameShape(f, type);
      expect(attr(element(f, 'ttl'), 'value'), type).to.equal(String(DEFAULT_TTL));
      expect(hint(f, 'ttl')).to.contain(`Empty: ${DEFAULT_TTL}.`);
      const option = new RegExp(`<option\\s+value="${type}"[^>]*>\\s*([^<]*?)\\s*</option>`).exec(f)!;
      expect(option[0], `${type} is the type chosen`).to.match(/\sselected/);
      expect(attr(option[0], 'data-example'), 'the option carries its example for the script').to.equal(
        attr(element(f, 'values'), 'placeholder'),
      );
    }
    const uk = form(await get(`${EDITOR}?add=1&type=MX`, 'uk'));
    expect(labels(uk)).to.deep.equal(['name:Ім’я', 'type:Тип', 'ttl:TTL (секунди)', 'values:Значення']);
    expect(hint(uk, 'values')).to.equal('Пріоритет і поштовий сервер; одне значення в рядку. Наприклад: 10 mail.example.net.');
  });

  it('a change to a set says what the new form says: its name as the table shows it, its type as the list names it', async () => {
    const create = form(await get(`${EDITOR}?add=1&type=MX`));
    const mxTitle = /<option\s+value="MX"[^>]*>\s*([^<]*?)\s*<\/option>/.exec(create)![1]!;
    for (const [name, type, shown] of [
      [ZONE, 'MX', '@'],
      [`www.${ZONE}`, 'A', 'www'],
    ] as const) {
      const f = form(await get(`${EDITOR}?edit=${encodeURIComponent(`${name}|${type}`)}`));
      sameShape(f, type);
      expect(attr(element(f, 'name'), 'value'), 'the name relative to the zone, as in the table').to.equal(shown);
      expect(hiddenField(f, 'name'), 'the set it changes').to.equal(name);
      expect(hint(f, 'ttl')).to.match(/Empty: as now, \d+\./);
      if (type === 'MX') {
        expect(attr(element(f, 'type'), 'value'), 'named as the list of types names it').to.equal(mxTitle);
        expect(hint(f, 'values')).to.equal(hint(create, 'values'));
        expect(textarea(f)).to.equal(`10 mail.${ZONE}.`);
      }
    }
  });

  const send = async (from: string, fields: Record<string, string>, lang: 'uk' | 'en' = 'en') => {
    const page = await get(from, lang);
    const f = form(page);
    const base: Record<string, string> = {
      _csrf: hiddenField(f, '_csrf')!,
      _form: hiddenField(f, '_form')!,
      draft: hiddenField(f, 'draft') ?? '',
      action: hiddenField(f, 'action')!,
    };
    const current = hiddenField(f, 'current');
    if (current) base.current = current;
    return consoleHttp(api).post(`${EDITOR}/draft`, cookie, { ...base, ...fields }, lang);
  };

  const mistakes: Array<{ what: string; fields: Record<string, string>; field: Field; says: RegExp }> = [
    {
      what: 'a name with an empty label',
      fields: { name: 'bad..name', type: 'A', ttl: '300', values: '192.0.2.1' },
      field: 'name',
      says: /empty label/,
    },
    {
      what: 'a set that exists already',
      fields: { name: 'www', type: 'A', ttl: '300', values: '192.0.2.1' },
      field: 'name',
      says: /already exists/,
    },
    {
      what: 'a TTL that is no number (the schema)',
      fields: { name: 'n1', type: 'TXT', ttl: 'an hour', values: 'hello' },
      field: 'ttl',
      says: /whole number/,
    },
    {
      what: 'a TTL out of range (a check)',
      fields: { name: 'n2', type: 'A', ttl: '99999999999', values: '192.0.2.1' },
      field: 'ttl',
      says: /out of range/,
    },
    {
      what: 'an MX without its priority',
      fields: { name: 'n3', type: 'MX', ttl: '300', values: 'mail.example.net.' },
      field: 'values',
      says: /MX value/,
    },
    {
      what: 'a CAA without its value',
      fields: { name: 'n4', type: 'CAA', ttl: '300', values: '0 issue' },
      field: 'values',
      says: /CAA value/,
    },
    {
      what: 'an SRV short of a number',
      fields: { name: '_sip._tcp', type: 'SRV', ttl: '300', values: '10 5 sip.example.net.' },
      field: 'values',
      says: /SRV/,
    },
    { what: 'a TXT with no text', fields: { name: 'n5', type: 'TXT', ttl: '300', values: '' }, field: 'values', says: /values/ },
  ];
  for (const m of mistakes)
    it(`${m.what}: named next to the ${m.field} field (and only there), everything typed kept`, async () => {
      const r = await send(`${EDITOR}?add=1`, m.fields);
      expect(r.status, r.text.slice(0, 300)).to.equal(422);
      const f = form(r);
      expect(problemAt(f, m.field)).to.match(m.says);
      for (const field of FIELDS) {
        const el = element(f, field);
        expect(attr(el, 'aria-invalid'), `${field} marked`).to.equal(field === m.field ? 'true' : null);
        expect((attr(el, 'aria-describedby') ?? '').includes(`rec-${field}-error`)).to.equal(field === m.field);
      }
      const summary = /<div class="alert error" role="alert">([\s\S]*?)<\/div>/.exec(f)?.[1] ?? '';
      expect(summary, 'the summary names the field by its label').to.match(
        new RegExp(`<strong>${{ name: 'Name', type: 'Type', ttl: 'TTL', values: 'Values' }[m.field]}</strong>:`),
      );
      expect(summary, 'not as a JSON pointer').not.to.match(/\(1\)|\/body\//);
      expect(attr(element(f, 'name'), 'value')).to.equal(m.fields.name);
      expect(attr(element(f, 'ttl'), 'value')).to.equal(m.fields.ttl);
      expect(textarea(f)).to.equal(m.fields.values);
      expect(/<option\s+value="([A-Z]+)"[^>]*\sselected/.exec(f.replace(/\s+/g, ' '))?.[1], 'the type chosen').to.equal(m.fields.type);
    });

  it('a mistake in a change to a set: next to the values, in Ukrainian too; the set it changes kept', async () => {
    const r = await send(
      `${EDITOR}?edit=${encodeURIComponent(`${ZONE}|MX`)}`,
      { name: ZONE, type: 'MX', ttl: '600', values: 'mail.example.net.' },
      'uk',
    );
    expect(r.status).to.equal(422);
    const f = form(r);
    expect(problemAt(f, 'values')).to.contain('MX');
    expect(/<strong>Значення<\/strong>:/.test(f)).to.equal(true);
    expect(attr(element(f, 'values'), 'aria-invalid')).to.equal('true');
    expect(attr(element(f, 'name'), 'value')).to.equal('@');
    expect(attr(element(f, 'ttl'), 'value')).to.equal('600');
    expect(JSON.parse(hiddenField(f, 'current')!)).to.deep.equal({ ttl: 3600, values: [`10 mail.${ZONE}.`] });
  });

  const draftOf = (location: string) =>
    JSON.parse(Buffer.from(new URL(location, 'http://x').searchParams.get('draft')!, 'base64url').toString('utf8')) as Array<{
      action: string;
      name: string;
      ttl?: number;
    }>;

  it('an empty TTL is the API’s default on a new set, and the set’s own TTL on a change — not an error', async () => {
    const created = await send(`${EDITOR}?add=1&type=MX`, { name: 'mail2', type: 'MX', ttl: '', values: '10 mx.example.net.' });
    expect(created.status, created.text.slice(0, 300)).to.equal(302);
    expect(draftOf(created.location!)).to.deep.include({
      action: 'create',
      name: 'mail2',
      type: 'MX',
      ttl: DEFAULT_TTL,
      values: ['10 mx.example.net.'],
    });
    const changed = await send(`${EDITOR}?edit=${encodeURIComponent(`www.${ZONE}|A`)}`, {
      name: `www.${ZONE}`,
      type: 'A',
      ttl: '',
      values: '192.0.2.44',
    });
    expect(changed.status, changed.text.slice(0, 300)).to.equal(302);
    const [change] = draftOf(changed.location!);
    const now = (await api.system.store.zones.find(api.demo.accountId, 'test', ZONE))!.recordSets.find(
      (s) => s.name === `www.${ZONE}` && s.type === 'A',
    )!;
    expect(change).to.include({ action: 'update', ttl: now.ttl });
  });

  it('the applied plans are listed newest first', async () => {
    const key = (await api.issueKey({ environment: 'test', rights: ['dns.edit'], domains: [ZONE] })).secret;
    const applied: string[] = [];
    for (const name of ['first-plan', 'second-plan']) {
      const plan = await api.call(`/v1/domains/${ZONE}/dns/plans`, {
        method: 'POST',
        headers: { ...bearer(key), 'idempotency-key': `plan-${name}` },
        json: { changes: [{ action: 'create', name, type: 'TXT', ttl: 300, values: [name] }] },
      });
      expect(plan.status, JSON.stringify(plan.body)).to.equal(201);
      const done = await api.call(`/v1/domains/${ZONE}/dns/plans/${plan.body.id}/apply`, {
        method: 'POST',
        headers: { ...bearer(key), 'idempotency-key': `apply-${name}` },
      });
      expect(done.status, JSON.stringify(done.body)).to.equal(200);
      applied.push(plan.body.id as string);
    }
    while ((await api.system.get(TOKENS.PublishEvents).run()).taken > 0);
    const page = await get(EDITOR);
    const table = /<table id="applied-plans"[\s\S]*?<\/table>/.exec(page.text)?.[0] ?? '';
    const listed = [...table.matchAll(/\/plans\/([^"]+)"/g)].map((m) => m[1]);
    expect(listed.slice(0, 2)).to.deep.equal([applied[1], applied[0]]);
    expect(table).to.contain('Newest first');
  });
});
