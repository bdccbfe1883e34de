/**
 * The parts of a URL that may leave the place it is stored: events (the log, webhook payloads, notices)
 * are read by keys with other rights than the one that set the URL, and a URL's path and query string
 * often carry a secret (`/hooks/<token>`, `?token=`). The brands make the event data types refuse a
 * raw URL: only these functions make the strings they accept.
 */
export type UrlHost = string & { readonly __urlPart: 'host' };
export type UrlWithoutQuery = string & { readonly __urlPart: 'without-query' };

/** `hooks.example.com` (with `:port` when not the scheme's default); '' for what is no URL. */
export const hostOfUrl = (url: string): UrlHost => {
  try {
    return new URL(url).host as UrlHost;
  } catch {
    return '' as UrlHost;
  }
};

/** Scheme, host and path: no credentials, query string or fragment. */
export const urlWithoutQuery = (url: string): UrlWithoutQuery => {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}` as UrlWithoutQuery;
  } catch {
    return '' as UrlWithoutQuery;
  }
};
