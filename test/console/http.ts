import type { TestApi } from '../support/system.js';

/**
 * The console over plain HTTP, as a browser without script sends it: a GET or a form POST with the
 * session's cookie (or none), the language and the sandbox chosen, redirects not followed. The answer
 * keeps what the tests read: status, page text, Location and the cookies set.
 */
export interface ConsoleAnswer {
  readonly status: number;
  readonly text: string;
  readonly location: string | null;
  readonly cookies: string[];
}

export const consoleHttp = (api: TestApi) => {
  const request = async (
    path: string,
    opts: { cookie?: string; form?: Record<string, string>; lang?: 'uk' | 'en' } = {},
  ): Promise<ConsoleAnswer> => {
    const r = await fetch(`${api.base}${path}`, {
      method: opts.form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: `${opts.cookie ?? ''}; dmk_lang=${opts.lang ?? 'en'}; dmk_env=test`,
        ...(opts.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(opts.form ? { body: new URLSearchParams(opts.form).toString() } : {}),
    });
    return { status: r.status, text: await r.text(), location: r.headers.get('location'), cookies: r.headers.getSetCookie() };
  };
  return {
    get: (path: string, cookie?: string, lang?: 'uk' | 'en') => request(path, { ...(cookie ? { cookie } : {}), ...(lang ? { lang } : {}) }),
    post: (path: string, cookie: string | undefined, form: Record<string, string>, lang?: 'uk' | 'en') =>
      request(path, { form, ...(cookie ? { cookie } : {}), ...(lang ? { lang } : {}) }),
  };
};

/** A hidden field's value as the page carries it (HTML entities undone), or null when it has none. */
export const hiddenField = (text: string, name: string): string | null => {
  const m = new RegExp(`name="${name}"\\s+value="([^"]*)"`).exec(text);
  return m
    ? m[1]!
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&')
    : null;
};

/** The cookie a response set, as `name=value` for the next request. */
export const cookieSet = (a: ConsoleAnswer, name: string): string | undefined =>
  a.cookies.find((c) => c.startsWith(`${name}=`))?.split(';')[0];
