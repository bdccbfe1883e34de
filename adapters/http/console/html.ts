/** Tiny HTML helpers for the server-rendered console: every interpolated value is escaped. */
export type Lang = 'uk' | 'en';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const esc = (v: unknown): string => String(v ?? '').replace(/[&<>"']/g, (c) => ESC[c]!);

/** Marks already-safe HTML. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}
export const raw = (s: string) => new Html(s);

/** Tagged template: interpolations are escaped unless they are Html (or arrays of Html). */
export const html = (strings: TemplateStringsArray, ...values: unknown[]): Html => {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
};
const render = (v: unknown): string => {
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return esc(v);
};

/** Accept-Language (RFC 9110 §12.5.4): the first of uk/en by quality; Ukrainian when neither is asked. */
export const langFrom = (header: string | undefined): Lang => {
  const prefs = (header ?? '')
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag ?? '', q: q ? Number(q.slice(2)) || 0 : 1, i };
    })
    .filter((p) => p.tag !== '' && p.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const p of prefs) {
    if (p.tag === 'uk' || p.tag.startsWith('uk-')) return 'uk';
    if (p.tag === 'en' || p.tag.startsWith('en-')) return 'en';
  }
  return 'uk';
};
