import { urlWithoutQuery } from '../kernel/url-parts.js';
import type { Monitor } from './monitor.js';

/** What a monitor looks at, in one line (notices, events): an HTTP URL without its query string. */
export const describeTarget = (m: Monitor): string => {
  switch (m.spec.kind) {
    case 'http':
      return urlWithoutQuery(m.spec.url);
    case 'tls':
      return `${m.spec.host}:${m.spec.port}`;
    case 'dns':
      return `${m.spec.name} ${m.spec.type}`;
    case 'domain_expiry':
      return m.domain;
  }
};
