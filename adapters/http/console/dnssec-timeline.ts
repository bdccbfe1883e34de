import type { DnssecView } from '../../../core/dnssec/dnssec-view.js';
import { ROLLOVER_STEPS } from '../../../core/dnssec/rollover.js';
import type { PublicEvent } from '../../../core/events/public-event.js';
import type { ApiKey } from '../../../core/kernel/caller.js';
import type { UseCases } from '../use-cases.js';
import { html, type Html } from './html.js';
import { when, type View } from './layout.js';
import { dataTable } from './table.js';

/**
 * A zone's DNSSEC history as the event log tells it (GET /v1/events?types=dns.dnssec_*&domain=, the same
 * use case and the same visibility), newest first, one plain sentence per step (RFC 6781 §4.1 rollovers).
 */
export const DNSSEC_EVENT_TYPES = ['dns.dnssec_enabled', 'dns.dnssec_rollover', 'dns.dnssec_disabling', 'dns.dnssec_disabled'];

/** The log is in publish order and kept 30 days; a zone has a handful of DNSSEC events a month. */
const PAGES = 5;
const SHOWN = 50;

export const readDnssecHistory = async (uc: Pick<UseCases, 'listEvents'>, key: ApiKey, domain: string): Promise<PublicEvent[]> => {
  const out: PublicEvent[] = [];
  let after: string | undefined;
  for (let i = 0; i < PAGES; i++) {
    const page = await uc.listEvents.execute(key, { types: DNSSEC_EVENT_TYPES.join(','), domain, limit: 200, ...(after ? { after } : {}) });
    out.push(...page.data);
    if (!page.has_more || !page.next_cursor) break;
    after = page.next_cursor;
  }
  return out.reverse().slice(0, SHOWN);
};

type T = { uk: string; en: string };
const STEP: Readonly<Record<string, T>> = {
  started: { uk: 'Заміну ключа почато.', en: 'The key rollover started.' },
  prepublish: {
    uk: 'Новий ключ опубліковано в наборі DNSKEY; він ще не підписує.',
    en: 'The new key is published in the DNSKEY set; it does not sign yet.',
  },
  double_sign: {
    uk: 'Обидва ключі підписують зону; CDS/CDNSKEY називають обидва.',
    en: 'Both keys sign the zone; CDS/CDNSKEY name both.',
  },
  new_signatures: {
    uk: 'Ключ нового алгоритму підписує зону, але ще не опублікований.',
    en: 'The new algorithm’s key signs the zone, not yet published.',
  },
  new_dnskey: {
    uk: 'Ключ нового алгоритму опубліковано в наборі DNSKEY; CDS/CDNSKEY називають обидва.',
    en: 'The new algorithm’s key is published in the DNSKEY set; CDS/CDNSKEY name both.',
  },
  ds_replaced: { uk: 'DS у реєстрі замінено на новий.', en: 'The DS at the registry was replaced by the new one.' },
  ds_replace_failed: {
    uk: 'Реєстр не прийняв заміну DS; зону й далі підписують обидва ключі, спробуємо знову.',
    en: 'The registry refused the DS replacement; both keys go on signing the zone, and we try again.',
  },
  old_unsigned: {
    uk: 'Старий ключ більше не підписує; він ще лишається опублікованим.',
    en: 'The old key no longer signs; it stays published a while.',
  },
  old_dnskey_removed: {
    uk: 'Старий ключ вилучено з набору DNSKEY; його підписи ще лишаються.',
    en: 'The old key left the DNSKEY set; its signatures stay a while.',
  },
  done: { uk: 'Заміну завершено; старий ключ вилучено.', en: 'The rollover is finished; the old key is retired.' },
};

const SHORT: Readonly<Record<string, T>> = {
  prepublish: { uk: 'новий ключ у DNSKEY', en: 'new key published' },
  double_sign: { uk: 'підписують обидва', en: 'both sign' },
  new_signatures: { uk: 'нові підписи', en: 'new signatures' },
  new_dnskey: { uk: 'новий DNSKEY', en: 'new DNSKEY' },
  ds_replaced: { uk: 'DS замінено', en: 'DS replaced' },
  old_unsigned: { uk: 'старий не підписує', en: 'old key stops signing' },
  old_dnskey_removed: { uk: 'старий DNSKEY вилучено', en: 'old DNSKEY removed' },
  done: { uk: 'завершено', en: 'done' },
};

export const stepText = (v: View, step: string): string => {
  const t = STEP[step];
  return t ? v.t(t.uk, t.en) : step;
};
const kindText = (v: View, kind: unknown) =>
  kind === 'algorithm' ? v.t('Заміна алгоритму', 'Algorithm rollover') : v.t('Заміна ключа', 'Key rollover');
const tagsOf = (ds: unknown): string => (Array.isArray(ds) ? ds.map((d) => String(d).split(' ')[0]).join(', ') : '');

const row = (v: View, e: PublicEvent): Html => {
  const d = e.data;
  let what: string;
  let keys = '—';
  let next: string | null = null;
  switch (e.type) {
    case 'dns.dnssec_enabled':
      what = v.t(
        `Зону підписано (алгоритм ${String(d.algorithm)}, ключ ${String(d.key_tag)}); його DS ще треба опублікувати в батьківській зоні.`,
        `The zone was signed (algorithm ${String(d.algorithm)}, key ${String(d.key_tag)}); its DS is yet to be published at the parent zone.`,
      );
      keys = String(d.key_tag);
      break;
    case 'dns.dnssec_rollover':
      what = `${kindText(v, d.kind)}: ${stepText(v, String(d.step))}${d.reason ? ` ${v.t('Причина', 'Reason')}: ${String(d.reason)}` : ''}`;
      keys = `${String(d.old_key_tag)} → ${String(d.new_key_tag)}`;
      next = typeof d.next_step_at === 'string' ? d.next_step_at : null;
      break;
    case 'dns.dnssec_disabling':
      what = v.t(
        `Реєстр прибрав DS (${tagsOf(d.ds)}). Зона підписується далі, доки кеші резолверів не забудуть DS; потім підписи зникнуть.`,
        `The registry removed the DS (${tagsOf(d.ds)}). The zone stays signed until resolvers’ caches forget the DS; then the signatures go.`,
      );
      keys = tagsOf(d.ds);
      next = typeof d.stop_signing_at === 'string' ? d.stop_signing_at : null;
      break;
    case 'dns.dnssec_disabled':
      what = v.t('DNSSEC вимкнено: зона більше не підписана.', 'DNSSEC is off: the zone is no longer signed.');
      break;
    default:
      what = e.type;
  }
  return html`<tr data-event="${e.type}">
    <td>${when(e.created_at, v)}</td>
    <td>${what}</td>
    <td>${keys}</td>
    <td>${next ? when(next, v) : '—'}</td>
  </tr>`;
};

export const historyTable = (v: View, events: readonly PublicEvent[]): Html =>
  dataTable(
    [v.t('Коли', 'When'), v.t('Що сталося', 'What happened'), v.t('Ключі (теги)', 'Keys (tags)'), v.t('Наступний крок', 'Next step')],
    events.map((e) => row(v, e)),
    { id: 'dnssec-history' },
  );

/** The rollover under way: its plan with the step reached, and when the next one runs. */
export const rolloverNow = (v: View, r: NonNullable<DnssecView['rollover']>): Html => {
  const plan = ROLLOVER_STEPS[r.kind];
  return html`<div class="card" id="dnssec-rollover">
    <p>
      <strong>${kindText(v, r.kind)}</strong> <span class="mono">${r.old_key_tag} → ${r.new_key_tag}</span>, ${v.t('почато', 'started')}
      ${when(r.started_at, v)}.
    </p>
    <ol class="steps" aria-label="${v.t('Кроки заміни', 'Rollover steps')}">
      ${plan.map((s) => html`<li${s === r.step ? html` aria-current="step"` : ''}>${SHORT[s] ? v.t(SHORT[s].uk, SHORT[s].en) : s}</li>`)}
    </ol>
    <p id="dnssec-rollover-step">${v.t('Зараз', 'Now')}: ${stepText(v, r.step)}</p>
    <p id="dnssec-rollover-next">
      ${v.t('Наступний крок', 'Next step')}: ${r.next_step_at ? when(r.next_step_at, v) : '—'}
      <span class="muted"
        >${v.t('(кожен крок чекає TTL того, що змінив попередній, щоб жоден кеш не тримав застарілого)', '(each step waits the TTL of what the last one changed, so no cache holds anything stale)')}</span
      >
    </p>
  </div>`;
};
