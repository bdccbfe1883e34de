import type { RightName } from '../kernel/rights.js';

/** Rights templates (seed A8: the human first picks a template). */
export interface KeyTemplate {
  readonly id: string;
  readonly rights: readonly RightName[];
  readonly title: { readonly uk: string; readonly en: string };
}

export const TEMPLATES: readonly KeyTemplate[] = [
  { id: 'read_only', rights: ['domain.read', 'dns.read', 'cert.read', 'monitor.read'], title: { uk: 'Лише читання', en: 'Read-only' } },
  { id: 'dns_editor', rights: ['domain.read', 'dns.edit'], title: { uk: 'Редактор DNS', en: 'DNS editor' } },
  {
    id: 'acme_client',
    rights: ['dns.acme_challenge'],
    title: { uk: 'ACME-клієнт (лише _acme-challenge)', en: 'ACME client (_acme-challenge only)' },
  },
  { id: 'certificates', rights: ['domain.read', 'cert.issue'], title: { uk: 'Сертифікати', en: 'Certificates' } },
  {
    id: 'dns_hosting',
    rights: ['domain.read', 'domain.host', 'dns.edit'],
    title: { uk: 'DNS-хостинг доменів, зареєстрованих деінде', en: 'DNS hosting for domains registered elsewhere' },
  },
  { id: 'monitoring', rights: ['domain.read', 'monitor.edit'], title: { uk: 'Моніторинг', en: 'Monitoring' } },
  { id: 'billing', rights: ['billing.read', 'billing.topup'], title: { uk: 'Оплата (поповнення балансу)', en: 'Billing (top-ups)' } },
  { id: 'renewals', rights: ['domain.read', 'domain.renew', 'billing.read'], title: { uk: 'Продовження доменів', en: 'Domain renewals' } },
  {
    id: 'registrar',
    rights: ['domain.read', 'domain.register', 'domain.renew', 'billing.read'],
    title: { uk: 'Реєстрація і продовження', en: 'Registration and renewal' },
  },
  {
    id: 'sandbox_clock',
    rights: ['sandbox.clock'],
    title: { uk: 'Годинник пісочниці (лише тестові ключі)', en: 'Sandbox clock (test keys only)' },
  },
];

export const TEMPLATE_IDS = TEMPLATES.map((t) => t.id);
export const templateById = (id: string): KeyTemplate | undefined => TEMPLATES.find((t) => t.id === id);
