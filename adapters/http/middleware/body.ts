import type { IncomingMessage } from 'node:http';
import { DomainError } from '../../../core/shared/errors.js';

/**
 * Reads a JSON body with a size limit: 415 for anything but application/json, 413 past the limit
 * (checked on Content-Length first, then while reading), 400 for malformed JSON.
 */
export const readJsonBody = async (req: IncomingMessage, limit: number): Promise<unknown> => {
  const length = req.headers['content-length'];
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if (!chunked && (length === undefined || length === '0')) return undefined;
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
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new DomainError('malformed_json');
  }
};
