import { XMLBuilder, XMLParser } from 'fast-xml-parser';

/**
 * EPP XML (RFC 5730–5733, 8748) built and read with fast-xml-parser: commands are JS objects turned
 * into XML by XMLBuilder (which escapes every text and attribute), responses are parsed with namespace
 * prefixes removed (registries pick their own prefixes). No string concatenation of XML anywhere.
 */
export const NS = {
  epp: 'urn:ietf:params:xml:ns:epp-1.0',
  domain: 'urn:ietf:params:xml:ns:domain-1.0',
  host: 'urn:ietf:params:xml:ns:host-1.0',
  contact: 'urn:ietf:params:xml:ns:contact-1.0',
  rgp: 'urn:ietf:params:xml:ns:rgp-1.0',
  fee: 'urn:ietf:params:xml:ns:epp:fee-1.0',
  secDNS: 'urn:ietf:params:xml:ns:secDNS-1.1',
} as const;

/** An XML element as fast-xml-parser's builder reads it: attributes prefixed `@_`, text as `#text`. */
export type XmlNode = { [name: string]: XmlValue };
export type XmlValue = string | number | boolean | XmlNode | XmlValue[] | null | undefined;

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', suppressEmptyNode: true, format: false });

const ARRAYS = new Set([
  'result',
  'cd',
  'status',
  'hostObj',
  'hostAttr',
  'hostAddr',
  'contact',
  'objURI',
  'extURI',
  'lang',
  'version',
  'command',
  'street',
  'postalInfo',
  'host',
  'value',
]);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => ARRAYS.has(name),
  processEntities: true,
});

/** `<?xml …?><epp xmlns="…epp-1.0">{body}</epp>` */
export const buildEpp = (body: XmlNode): string =>
  `<?xml version="1.0" encoding="UTF-8" standalone="no"?>${builder.build({ epp: { '@_xmlns': NS.epp, ...body } })}`;

/** A command frame: `<command><{verb}>{object}</{verb}>[<extension>][<clTRID>]</command>`. */
export const buildCommand = (verb: string, object: XmlNode | null, clTRID: string, extension?: XmlNode, verbAttrs: XmlNode = {}): string =>
  buildEpp({
    command: {
      [verb]: object ? { ...verbAttrs, ...object } : { ...verbAttrs },
      ...(extension ? { extension } : {}),
      clTRID,
    },
  });

export const parseEpp = (xml: string): XmlNode => {
  const doc = parser.parse(xml) as XmlNode;
  const epp = doc.epp;
  if (!epp || typeof epp !== 'object') throw new Error('not an EPP document');
  return epp as XmlNode;
};

/** Children helpers over parsed nodes (every accessor tolerates absence). */
export const child = (n: XmlValue, name: string): XmlNode | undefined => {
  if (!n || typeof n !== 'object' || Array.isArray(n)) return undefined;
  const v = (n as XmlNode)[name];
  if (Array.isArray(v)) return v[0] as XmlNode | undefined;
  if (v === '') return {};
  return v && typeof v === 'object' ? (v as XmlNode) : v === undefined ? undefined : ({ '#text': v } as XmlNode);
};
export const children = (n: XmlValue, name: string): XmlNode[] => {
  if (!n || typeof n !== 'object' || Array.isArray(n)) return [];
  const v = (n as XmlNode)[name];
  const list = v === undefined ? [] : Array.isArray(v) ? v : [v];
  return list.map((x) => (x && typeof x === 'object' ? (x as XmlNode) : ({ '#text': x === '' ? '' : x } as XmlNode)));
};
export const text = (n: XmlValue | undefined): string => {
  if (n === undefined || n === null) return '';
  if (typeof n !== 'object') return String(n);
  if (Array.isArray(n)) return text(n[0]);
  const t = (n as XmlNode)['#text'];
  return t === undefined || t === null ? '' : String(t);
};
export const attr = (n: XmlValue | undefined, name: string): string | undefined => {
  if (!n || typeof n !== 'object' || Array.isArray(n)) return undefined;
  const v = (n as XmlNode)[`@_${name}`];
  return v === undefined ? undefined : String(v);
};
export const path = (n: XmlValue, ...names: string[]): XmlNode | undefined => {
  let cur: XmlNode | undefined = n as XmlNode;
  for (const name of names) {
    cur = child(cur, name);
    if (!cur) return undefined;
  }
  return cur;
};

/** One `<result>` of a response. */
export interface EppResult {
  readonly code: number;
  readonly message: string;
  /** `<value>`/`<extValue><reason>` texts the registry gave (reasons for refusals). */
  readonly reasons: readonly string[];
}

export interface EppResponse {
  readonly results: readonly EppResult[];
  readonly resData: XmlNode | undefined;
  readonly extension: XmlNode | undefined;
  readonly msgQ: { readonly count: number; readonly id: string; readonly qDate: string | null; readonly msg: string } | null;
  readonly clTRID: string | null;
  readonly svTRID: string | null;
}

export const readResponse = (xml: string): EppResponse => {
  const epp = parseEpp(xml);
  const res = child(epp, 'response');
  if (!res) throw new Error('EPP frame is not a response');
  const results = children(res, 'result').map((r) => ({
    code: Number(attr(r, 'code')),
    message: text(child(r, 'msg')),
    reasons: [...children(r, 'extValue').map((x) => text(child(x, 'reason')))].filter(Boolean),
  }));
  const q = child(res, 'msgQ');
  const trID = child(res, 'trID');
  return {
    results,
    resData: child(res, 'resData'),
    extension: child(res, 'extension'),
    msgQ: q
      ? {
          count: Number(attr(q, 'count') ?? 0),
          id: attr(q, 'id') ?? '',
          qDate: text(child(q, 'qDate')) || null,
          msg: text(child(q, 'msg')),
        }
      : null,
    clTRID: text(child(trID, 'clTRID')) || null,
    svTRID: text(child(trID, 'svTRID')) || null,
  };
};

/** What the greeting announces (RFC 5730 §2.4). */
export interface Greeting {
  readonly svID: string;
  readonly versions: readonly string[];
  readonly langs: readonly string[];
  readonly objURIs: readonly string[];
  readonly extURIs: readonly string[];
}

export const readGreeting = (xml: string): Greeting => {
  const epp = parseEpp(xml);
  const g = child(epp, 'greeting');
  if (!g) throw new Error('EPP frame is not a greeting');
  const menu = child(g, 'svcMenu');
  return {
    svID: text(child(g, 'svID')),
    versions: children(menu, 'version').map(text),
    langs: children(menu, 'lang').map(text),
    objURIs: children(menu, 'objURI').map(text),
    extURIs: children(child(menu, 'svcExtension'), 'extURI').map(text),
  };
};

/**
 * The XML with secrets blanked, for logs: login `<pw>`/`<newPW>` and every `<…authInfo>` content.
 * Works on the parsed tree (no regular expressions over XML).
 */
export const redact = (xml: string): string => {
  try {
    const redactNode = (n: XmlValue, inSecret: boolean): XmlValue => {
      if (Array.isArray(n)) return n.map((x) => redactNode(x, inSecret));
      if (n && typeof n === 'object') {
        const out: XmlNode = {};
        for (const [k, v] of Object.entries(n)) {
          const local = k.includes(':') ? k.slice(k.indexOf(':') + 1) : k;
          const secret = inSecret || local === 'authInfo' || local === 'pw' || local === 'newPW';
          out[k] = redactNode(v, secret);
        }
        return out;
      }
      return inSecret && typeof n === 'string' && n !== '' ? '[redacted]' : n;
    };
    const raw = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false }).parse(xml) as XmlNode;
    const copy = redactNode(raw, false) as XmlNode;
    delete copy['?xml'];
    return builder.build(copy) as string;
  } catch {
    return '[unparseable EPP frame]';
  }
};
