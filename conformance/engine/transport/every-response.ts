// The rules of every response, applied to every exchange a check made with the deployment (checks that declare
// `everyResponse`): a clause about every response is judged on every status, route and code the suite provokes, not only
// on the answers of the checks written for it. Each exchange is judged on its own (lib/expect/every-response.ts): the
// request id, the nonce of a DPoP request, the boundary's headers, the problem document of a failure, and the headers of
// a domain error. Exchanges with another host (the identity provider, a Location elsewhere) and those without a complete
// answer are left out; a HEAD answer has no body to judge.
import {
  EVERY_RESPONSE_CLAUSES,
  cacheable,
  expectBoundaryRules,
  expectDomainErrorHeaders,
  expectDpopNonce,
  expectProblemMembers,
  expectRequestId,
} from '../../lib/expect/every-response.js';
import { credentialsOf, isDpopRequest } from '../../../contract/requests.js';
import type { Exchange } from './transcript.js';

/** The clauses a check that declares `everyResponse` judges besides its own (the tags the self-test picks it by). */
export const AMBIENT_CLAUSES: readonly string[] = [...EVERY_RESPONSE_CLAUSES, 'AUTH-ORDER-4', 'ERR-PROBLEM-8'];

function parse(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** The path of `url` below the base URL, or undefined when the exchange went elsewhere. */
function pathBelow(url: string, baseUrl: string): string | undefined {
  if (!url.startsWith(baseUrl)) return undefined;
  const rest = url.slice(baseUrl.length);
  if (rest !== '' && !rest.startsWith('/') && !rest.startsWith('?')) return undefined;
  return (rest.split('?')[0] || '/').replace(/\/+$/, '') || '/';
}

/** Judges every complete exchange with the deployment on the rules of every response (soft failures, each named). */
export function judgeEveryExchange(exchanges: readonly Exchange[], o: { baseUrl: string; docsUrl: string }): void {
  exchanges.forEach((x, i) => {
    if (x.error !== undefined || x.status === undefined || x.responseHeaders === undefined) return;
    const path = pathBelow(x.url, o.baseUrl);
    if (path === undefined) return;
    const method = x.method.toUpperCase();
    const text = x.responseBody ?? '';
    const res = { status: x.status, headers: new Headers(x.responseHeaders), text, body: parse(text) };
    const what = `exchange ${i + 1}: ${method} ${path}`;
    expectRequestId(res, what);
    // A DPoP request (AUTH-ORDER-4): a proof presented with the DPoP scheme. A DPoP header beside a Bearer token, or with
    // no Authorization at all, is a DPoP request in one reading of the spec and not in the other (docs/ambiguities.md).
    const dpop = isDpopRequest(credentialsOf(x.requestHeaders));
    if (dpop) expectDpopNonce(res, what);
    if (method === 'HEAD' || /^text\/event-stream/i.test(res.headers.get('content-type') ?? '')) {
      // No body to judge: the headers of the boundary alone (a failure's media type and no-store, a success's no-store).
      expectBoundaryRules({ ...res, body: { error: 'head' } }, what, cacheable(method, path));
      return;
    }
    expectBoundaryRules(res, what, cacheable(method, path));
    expectProblemMembers(o.docsUrl, res, what);
    expectDomainErrorHeaders(res, what, dpop);
  });
}
