// Defects that prove the strengthened checks: each breaks its clause the way the weak form of a check let through.
import { headerOf, type ProxyRequest } from '../proxy.js';
import { SECRET_ROUTES, type SecretName } from './internal.js';
import { pathOf, problemAnswer, problemCode, wire, wireWith, type Defect, type DefectContext } from './types.js';

/**
 * An internal route that compares its credential with a stale value (a secret rotated on one side only): the proxy spoils
 * the right secret wherever the request carries it, so the route refuses every caller, the rightful one included.
 */
const staleSecret = (match: (path: string) => boolean, secret: SecretName) => (ctx: DefectContext) => ({
  request(req: ProxyRequest): ProxyRequest {
    const value = ctx.profile.secrets[secret];
    if (req.method !== 'POST' || !match(pathOf(req)) || typeof value !== 'string') return req;
    return { ...req, headers: req.headers.map(([k, v]) => [k, v.split(value).join(`${value}-stale`)] as [string, string]) };
  },
});

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
  ...SECRET_ROUTES.filter(([clause]) => /^END-PUBLIC-(9|1[1-6])$/.test(clause)).map(
    ([clause, match, secret]) =>
      ({
        id: `strength.${clause.toLowerCase()}.own-secret-refused`,
        clause,
        description: 'the route refuses every credential, its own secret included (compared with a stale value)',
        kind: 'wire',
        rules: staleSecret(match, secret),
      }) satisfies Defect,
  ),
  // A reader that stops at the cap but reports the cut body as invalid: the refusal no longer says it is about size.
  wireWith(
    'strength.intent-cap-as-validation',
    'LIM-INTENT-1',
    'a security intent over 8 KiB is refused 400 invalid_request (as an invalid body) instead of as too large',
    (ctx) => (a, r) =>
      pathOf(r) === '/internal/account/security-intents' && problemCode(a) === 'payload_too_large'
        ? problemAnswer(ctx, a, 400, 'invalid_request', 'Bad Request')
        : a,
  ),
];
