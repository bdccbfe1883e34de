import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { DomainError } from '../../../core/kernel/errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a JSON body with a size limit: 415 for anything but application/json, 413 past the limit
 * (checked on Content-Length first, then while reading), 400 for malformed JSON.
 */
export const readJsonBody = async (req: IncomingMessage, limit: number): Promise<unknown> => {
  const length = req.headers['content-length'];
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if (!chunked && (length === undefined || length === '0')) return undefined;
  // RFC 8259 §11: application/json defines no charset parameter and "adding one really has no effect
  // on compliant recipients" — the body is UTF-8 (§8.1), decoded strictly below.
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]*\+json$/.test(type)) {
    req.resume();
    throw new DomainError('unsupported_media_type');
  }
  if (length !== undefined && Number(length) > limit) {
    req.resume();
    throw new DomainError('payload_too_large', { limit });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      throw new DomainError('payload_too_large', { limit });
    }
    chunks.push(chunk as Buffer);
  }
  let text: string;
  try {
    text = utf8.decode(Buffer.concat(chunks));
  } catch {
    throw new DomainError('malformed_json'); // bytes that are not UTF-8 are never silently replaced
  }
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new DomainError('malformed_json');
  }
};

/** The media type of a request, lower case, without parameters ('' when none). */
export const mediaTypeOf = (req: IncomingMessage): string => (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();

/** A text body as read: its chunks (decoded, in order), its SHA-256 and its size in bytes. */
export interface TextBody {
  readonly chunks: readonly string[];
  readonly sha256: string;
  readonly bytes: number;
}

/**
 * Reads a text body (a zone file as text/dns) with a size limit: 413 past it, checked on Content-Length
 * first, then while reading; the bytes must be UTF-8 (decoded strictly, chunk by chunk). The chunks stay as
 * they came, so a large body is never joined into one string.
 */
export const readTextBody = async (req: IncomingMessage, limit: number): Promise<TextBody> => {
  const length = req.headers['content-length'];
  if (length !== undefined && Number(length) > limit) {
    req.resume();
    throw new DomainError('payload_too_large', { limit });
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const hash = createHash('sha256');
  const chunks: string[] = [];
  let size = 0;
  let lines = 1;
  const notUtf8 = () =>
    new DomainError('zone_file_invalid', { line: lines, reason: 'the text is not UTF-8', reason_uk: 'текст не в кодуванні UTF-8' });
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > limit) {
      req.resume();
      throw new DomainError('payload_too_large', { limit });
    }
    hash.update(b);
    let text: string;
    try {
      text = decoder.decode(b, { stream: true });
    } catch {
      req.resume();
      throw notUtf8();
    }
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
    if (text !== '') chunks.push(text);
  }
  try {
    const rest = decoder.decode();
    if (rest !== '') chunks.push(rest);
  } catch {
    throw notUtf8();
  }
  return { chunks, sha256: hash.digest('hex'), bytes: size };
};
