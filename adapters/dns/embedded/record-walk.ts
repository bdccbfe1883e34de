/**
 * A structural walk over the records after the question (found by the hostile DNS fuzz):
 * dns-packet decodes leniently — an OPT whose options run past its RDATA, an OPT outside the
 * additional section, or octets after the last record were answered as if the query were sound.
 * RFC 6891 §6.1.1 (OPT only in the additional section) and §6.1.2 (options are code, length, data,
 * filling the RDATA), RFC 1035 §4.1.3 (a record is name, type, class, TTL, RDLENGTH, RDATA): anything
 * else is a malformed message, answered FORMERR as BIND and Knot do.
 */
const T_OPT = 41;

/** The offset after a (possibly compressed) name at `o`, or -1 when it is malformed. */
const skipName = (buf: Buffer, o: number): number => {
  for (;;) {
    const l = buf[o];
    if (l === undefined) return -1;
    if (l === 0) return o + 1;
    if ((l & 0xc0) === 0xc0) return o + 2 <= buf.length ? o + 2 : -1; // a pointer ends the name
    if (l > 63) return -1; // reserved label types (RFC 6891 §5)
    o += 1 + l;
  }
};

/** True when the `an`, `ns` and `ar` records from `start` are well formed and end the packet exactly. */
export const recordsWellFormed = (buf: Buffer, start: number, an: number, ns: number, ar: number): boolean => {
  let o = start;
  const total = an + ns + ar;
  for (let i = 0; i < total; i++) {
    o = skipName(buf, o);
    if (o < 0 || o + 10 > buf.length) return false;
    const type = buf.readUInt16BE(o);
    const end = o + 10 + buf.readUInt16BE(o + 8);
    if (end > buf.length) return false;
    if (type === T_OPT) {
      if (i < an + ns) return false; // OPT only in the additional section
      for (let p = o + 10; p < end;) {
        if (p + 4 > end) return false;
        p += 4 + buf.readUInt16BE(p + 2);
        if (p > end) return false;
      }
    }
    o = end;
  }
  return o === buf.length;
};
