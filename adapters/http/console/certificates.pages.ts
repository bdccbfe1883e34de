import type { CertificateView } from '../../../core/certificates/certificate.js';
import type { DomainError } from '../../../core/kernel/errors.js';
import { certificateRoutes } from '../routes/certificates.routes.js';
import type { UseCases } from '../use-cases.js';
import { attempt, doneBanner, enc, errorBox, field, fieldError, fieldMessages, keyFor, postForm, validateBody, when } from './acting.js';
import { html } from './html.js';
import type { View } from './layout.js';
import { dataTable } from './table.js';
import type { ConsolePage, ConsoleRequest, PageOut } from './page.js';

/**
 * Certificates in the console: request (names, wildcards), watch the status, download the chain and the
 * key we generated, revoke — the same use cases as /v1/certificates (cert.issue is class 1: members too).
 */
const statusText = (v: View, s: string) =>
  ({
    pending: v.t('очікує на видачу', 'waiting to be issued'),
    issued: v.t('видано', 'issued'),
    failed: v.t('не вдалося', 'failed'),
    expired: v.t('прострочено', 'expired'),
    revoked: v.t('відкликано', 'revoked'),
  })[s] ?? s;
const pill = (v: View, s: string) =>
  html`<span class="pill ${s === 'issued' ? 'ok' : s === 'pending' ? 'warn' : 'bad'}">${statusText(v, s)}</span>`;

const REASONS: Array<[number, string, string]> = [
  [0, 'без причини', 'unspecified'],
  [1, 'ключ скомпрометовано', 'key compromise'],
  [3, 'змінилася належність', 'affiliation changed'],
  [4, 'замінено новим', 'superseded'],
  [5, 'більше не потрібен', 'cessation of operation'],
];

const base = '/console/certificates';

export const certificatePages = (uc: UseCases): ConsolePage[] => {
  const routes = certificateRoutes(uc);

  const list = async (
    r: ConsoleRequest,
    typed?: { names: string; auto: boolean; error: DomainError },
    status?: number,
  ): Promise<PageOut> => {
    const v = r.view;
    const page = await uc.certificates.list(await keyFor(uc, r), { limit: 100 });
    return {
      title: v.t('Сертифікати', 'Certificates'),
      ...(status ? { status } : {}),
      body: html`<h1>${v.t('Сертифікати', 'Certificates')}</h1>
        <p class="lead">
          ${v.env === 'test' ? v.t('Пісочниця: сертифікати видає наш тестовий центр (браузери їм не довіряють).', 'Sandbox: our test authority issues these (browsers do not trust them).') : v.t('Видає публічний центр ACME; перевірка DNS-01 проходить через наш DNS.', 'A public ACME authority issues them; the DNS-01 check runs through our DNS.')}
        </p>
        <section class="card" aria-labelledby="req-h">
          <h2 id="req-h">${v.t('Замовити сертифікат', 'Request a certificate')}</h2>
          ${errorBox(v, typed?.error)}
          ${postForm(
            v,
            base,
            html`<label for="cert-names">${v.t('Імена', 'Names')}</label>
              <textarea
                id="cert-names"
                name="names"
                rows="3"
                aria-describedby="cert-hint"
                ${fieldMessages(v, typed?.error, 'domains').length ? html`aria-invalid="true"` : ''}
              >
${typed?.names ?? ''}</textarea>
              ${fieldError(v, typed?.error, 'domains')}
              <p class="hint" id="cert-hint">
                ${v.t('Одне ім’я в рядку, у ваших доменах; *.example.com — для всіх піддоменів першого рівня.', 'One name per line, inside your domains; *.example.com covers every first-level subdomain.')}
              </p>
              <div class="choice">
                <input
                  id="cert-auto"
                  name="auto_renew"
                  type="checkbox"
                  value="1"
                  ${typed ? (typed.auto ? html`checked` : '') : html`checked`}
                />
                <label for="cert-auto">${v.t('Поновлювати за 30 днів до закінчення', 'Renew 30 days before it expires')}</label>
              </div>
              <div class="actions"><button type="submit">${v.t('Замовити', 'Request')}</button></div>`,
          )}
        </section>
        ${
          page.data.length === 0
            ? html`<p>${v.t('Сертифікатів ще немає.', 'No certificates yet.')}</p>`
            : dataTable(
                [v.t('Імена', 'Names'), v.t('Стан', 'Status'), v.t('Діє до', 'Valid until'), v.t('Замовлено', 'Requested')],
                page.data.map(
                  (c) =>
                    html`<tr>
                      <td class="mono"><a href="${base}/${enc(c.id)}">${c.domains.join(', ')}</a></td>
                      <td data-label="${v.t('Стан', 'Status')}">${pill(v, c.status)}</td>
                      <td data-label="${v.t('Діє до', 'Valid until')}">${when(c.not_after, v)}</td>
                      <td data-label="${v.t('Замовлено', 'Requested')}">${when(c.created_at, v)}</td>
                    </tr>`,
                ),
                { id: 'certificates', cls: 'stack' },
              )
        }`,
    };
  };

  const detail = (r: ConsoleRequest, c: CertificateView, error?: DomainError): PageOut => {
    const v = r.view;
    const self = `${base}/${enc(c.id)}`;
    return {
      title: v.t('Сертифікат', 'Certificate'),
      ...(error ? { status: 409 } : {}),
      body: html`<p><a href="${base}">← ${v.t('Сертифікати', 'Certificates')}</a></p>
        <h1>${v.t('Сертифікат', 'Certificate')} <small class="muted mono">${c.domains.join(', ')}</small></h1>
        ${doneBanner(r, {
          requested:
            c.status === 'pending'
              ? [
                  'Замовлення прийнято; сертифікат видається у фоні — оновіть стан за хвилину.',
                  'The request was accepted; the certificate is being issued in the background — refresh the status in a minute.',
                ]
              : ['Замовлення виконано.', 'The request was handled.'],
          revoked: ['Сертифікат відкликано.', 'The certificate was revoked.'],
        })}
        ${errorBox(v, error)}
        <div class="card">
          <dl class="kv">
            <dt>${v.t('Стан', 'Status')}</dt>
            <dd id="cert-status">${pill(v, c.status)}</dd>
            <dt>${v.t('Імена', 'Names')}</dt>
            <dd class="mono">${c.domains.map((d) => html`${d}<br />`)}</dd>
            <dt>${v.t('Центр', 'Authority')}</dt>
            <dd>${c.issuer ?? c.ca}</dd>
            <dt>${v.t('Діє', 'Valid')}</dt>
            <dd>${c.not_before ? html`${when(c.not_before, v)} — ${when(c.not_after, v)}` : '—'}</dd>
            <dt>${v.t('Поновлення', 'Renewal')}</dt>
            <dd>
              ${c.auto_renew ? (c.renew_after ? v.t(`автоматично після ${when(c.renew_after, v)}`, `automatic after ${when(c.renew_after, v)}`) : v.t('автоматично', 'automatic')) : v.t('вимкнено', 'off')}
            </dd>
            ${
              c.serial
                ? html`<dt>${v.t('Серійний номер', 'Serial')}</dt>
                    <dd class="mono wrap">${c.serial}</dd>`
                : ''
            }
            ${
              c.failure
                ? html`<dt>${v.t('Причина відмови', 'Why it failed')}</dt>
                    <dd>
                      ${c.failure.reason}
                      <span class="muted"
                        >(${v.t('спроб', 'attempts')}:
                        ${c.failure.attempts}${c.failure.next_attempt_at ? `; ${v.t('наступна', 'next')} ${when(c.failure.next_attempt_at, v)}` : ''})</span
                      >
                    </dd>`
                : ''
            }
          </dl>
        </div>
        ${c.status === 'pending' ? html`<p><a class="button secondary" href="${self}">${v.t('Оновити стан', 'Refresh the status')}</a></p>` : ''}
        ${
          c.status === 'issued'
            ? html`<h2>${v.t('Завантажити', 'Download')}</h2>
                <p class="actions">
                  <a class="button" href="${self}/chain">${v.t('Ланцюжок (PEM)', 'Chain (PEM)')}</a>
                  ${c.private_key_held ? html`<a class="button secondary" href="${self}/private-key">${v.t('Закритий ключ (PEM)', 'Private key (PEM)')}</a>` : ''}
                </p>
                ${c.private_key_held ? html`<p class="muted">${v.t('Ключ зберігається зашифрованим; завантажуйте його лише на свій сервер.', 'The key is kept encrypted; download it only onto your own server.')}</p>` : ''}
                <h2>${v.t('Відкликати', 'Revoke')}</h2>
                <div class="card">
                  ${postForm(
                    v,
                    `${self}/revoke`,
                    html`<label for="revoke-reason">${v.t('Причина', 'Reason')}</label>
                      <select id="revoke-reason" name="reason">
                        ${REASONS.map(([n, uk, en]) => html`<option value="${n}">${v.t(uk, en)}</option>`)}
                      </select>
                      <div class="actions">
                        <button class="danger" type="submit">${v.t('Відкликати сертифікат', 'Revoke the certificate')}</button>
                      </div>`,
                    {
                      confirm: v.t(
                        'Відкликати цей сертифікат? Сайти з ним перестануть відкриватися без попереджень.',
                        'Revoke this certificate? Sites using it will show warnings.',
                      ),
                    },
                  )}
                </div>`
            : ''
        }`,
    };
  };

  return [
    { method: 'GET', pattern: /^\/console\/certificates$/, auth: true, handle: (r) => list(r) },
    {
      method: 'POST',
      pattern: /^\/console\/certificates$/,
      auth: true,
      handle: async (r) => {
        const names = field(r, 'names');
        const auto = field(r, 'auto_renew') === '1';
        const body = {
          domains: names
            .split(/[\s,]+/)
            .map((x) => x.trim())
            .filter(Boolean),
          auto_renew: auto,
        };
        const out = await attempt(async () => {
          validateBody(routes, 'requestCertificate', body);
          return uc.certificates.request(await keyFor(uc, r), body);
        });
        if ('error' in out) return list(r, { names, auto, error: out.error }, 422);
        return { redirect: `${base}/${enc(out.ok.id)}?done=requested` };
      },
    },
    {
      method: 'GET',
      pattern: /^\/console\/certificates\/([^/]+)$/,
      auth: true,
      handle: async (r) => detail(r, await uc.certificates.get(await keyFor(uc, r), r.params[0]!)),
    },
    {
      method: 'GET',
      pattern: /^\/console\/certificates\/([^/]+)\/chain$/,
      auth: true,
      handle: async (r) => ({
        file: {
          body: await uc.certificates.chain(await keyFor(uc, r), r.params[0]!),
          type: 'application/x-pem-file',
          name: `${r.params[0]!}-chain.pem`,
        },
      }),
    },
    {
      method: 'GET',
      pattern: /^\/console\/certificates\/([^/]+)\/private-key$/,
      auth: true,
      handle: async (r) => ({
        file: {
          body: await uc.certificates.privateKey(await keyFor(uc, r), r.params[0]!),
          type: 'application/x-pem-file',
          name: `${r.params[0]!}-key.pem`,
        },
      }),
    },
    {
      method: 'POST',
      pattern: /^\/console\/certificates\/([^/]+)\/revoke$/,
      auth: true,
      handle: async (r) => {
        const id = r.params[0]!;
        const key = await keyFor(uc, r);
        const reason = Number(field(r, 'reason') || '0');
        const out = await attempt(async () => {
          validateBody(routes, 'revokeCertificate', { reason });
          return uc.certificates.revoke(key, id, reason);
        });
        if ('error' in out) return detail(r, await uc.certificates.get(key, id), out.error);
        return { redirect: `${base}/${enc(id)}?done=revoked` };
      },
    },
  ];
};
