// Request bodies: the bounded reader, JSON decoding (before authentication) and schema parsing.
import type { IncomingMessage } from 'node:http';
import type { ZodType } from 'zod';
import { HttpError, validationError, zodIssues } from './http.js';

export const BODY_CAP = 256 * 1024;

export class BodyReader {
  static async read(req: IncomingMessage, cap: number): Promise<Buffer> {
    const declared = req.headers['content-length'];
    if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > cap) {
      await BodyReader.drain(req);
      throw new HttpError(413, 'payload_too_large', `The request body exceeds ${cap} bytes.`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    for await (const chunk of req) {
      const buf = chunk as Buffer;
      size += buf.length;
      if (size > cap) over = true;
      if (!over) chunks.push(buf);
      if (size > 32 * 1024 * 1024) break;
    }
    if (over) throw new HttpError(413, 'payload_too_large', `The request body exceeds ${cap} bytes.`);
    return Buffer.concat(chunks);
  }

  static async drain(req: IncomingMessage): Promise<void> {
    let size = 0;
    try {
      for await (const chunk of req) {
        size += (chunk as Buffer).length;
        if (size > 32 * 1024 * 1024) break;
      }
    } catch {}
  }
}

/** Decodes a JSON request body (before authentication): 415 for another media type, 400 for malformed JSON. */
export function decodeJson(req: IncomingMessage, raw: Buffer): { present: boolean; value: unknown } {
  if (raw.length === 0) return { present: false, value: undefined };
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new HttpError(415, 'unsupported_media_type', 'Request bodies must be application/json.');
  }
  try {
    return { present: true, value: JSON.parse(raw.toString('utf8')) };
  } catch {
    throw validationError(
      [{ path: 'body', code: 'invalid_json', message: 'The body is not valid JSON.' }],
      'The request body is not valid JSON.',
    );
  }
}

export function parseWith(schema: ZodType, value: unknown, prefix: string): any {
  const r = schema.safeParse(value);
  if (!r.success) throw validationError(zodIssues(prefix, r.error));
  return r.data;
}
