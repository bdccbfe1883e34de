import { labelsOf } from '../kernel/domain-name.js';

/** Yearly prices per TLD in kopiykas (DESIGN: the price list covers at least these). Data, not code. */
export const PRICE_LIST: Readonly<Record<string, number>> = {
  ua: 120000,
  'com.ua': 40000,
  'kyiv.ua': 30000,
  'org.ua': 35000,
  com: 55000,
  net: 60000,
  org: 52000,
  dev: 65000,
  io: 180000,
};

/** The longest suffix of the name that is on the price list ("shop.com.ua" → "com.ua"). */
export const tldOf = (name: string): string | null => {
  const labels = labelsOf(name);
  for (let i = 1; i < labels.length; i++) {
    const suffix = labels.slice(i).join('.');
    if (suffix in PRICE_LIST) return suffix;
  }
  return null;
};

/** Registrable names sit exactly one label below a priced suffix. */
export const isRegistrable = (name: string): boolean => {
  const tld = tldOf(name);
  // A priced suffix itself (com.ua under ua) is a registry zone, not a name anyone can register.
  return tld !== null && !(name in PRICE_LIST) && labelsOf(name).length === labelsOf(tld).length + 1;
};

export const yearlyPrice = (name: string): number | null => {
  const tld = tldOf(name);
  return tld === null ? null : PRICE_LIST[tld]!;
};
