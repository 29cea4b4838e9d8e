// Defects that prove the strengthened checks: each breaks its clause the way the weak form of a check let through.
import { headerOf } from '../proxy.js';
import { wire, type Defect } from './types.js';

export const STRENGTH_DEFECTS: readonly Defect[] = [
  // A validator cache that answers "not modified" as soon as the client holds any tag, never comparing it.
  wire('strength.not-modified-any-tag', 'END-CONV-8', 'a GET with any If-None-Match is answered 304, a non-matching tag too', (a, r) =>
    r.method === 'GET' &&
    a.status === 200 &&
    headerOf(a.headers, 'etag') !== undefined &&
    headerOf(r.headers, 'if-none-match') !== undefined
      ? { status: 304, headers: a.headers.filter(([k]) => !/^content-(type|length)$/i.test(k)), body: '' }
      : a,
  ),
];
