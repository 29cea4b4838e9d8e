// The one cursor codec of paginated lists (catalog, orders, operator lists): an opaque base64url token over the offset.
// A cursor this service did not issue is a validation failure of `query.cursor`.
import { invalidRequest } from './problem.js';

export const encodeCursor = (offset: number): string => Buffer.from(`o:${offset}`).toString('base64url');

export function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const m = /^o:(\d{1,6})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw invalidRequest([{ path: 'query.cursor', code: 'invalid_cursor', message: 'The cursor is not one this service issued.' }]);
  return Number(m[1]);
}
