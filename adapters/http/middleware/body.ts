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
