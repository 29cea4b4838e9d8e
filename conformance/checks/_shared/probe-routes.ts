// "Was this caller answered as on a route that does not exist?", for the checks that judge who an operation admits: the
// answer of no route (conformance/lib/routes.ts) to the same method and credentials, at a path no service has. A served
// route answers each caller either past the guard or with a refusal of the caller; the answer of no route to every kind,
// members and others alike, means the operation is not served there, whatever the caller lists say.
import type { Shop } from '../../engine/runner/check.js';
import type { RequestOptions, ShopResponse } from '../../engine/transport/http.js';
import { looksUnmatched, probeUnmatched } from '../../lib/routes.js';

/** Credentials of one caller kind, as conformance/lib/callers.ts gives them. */
export type Who = Pick<RequestOptions, 'token' | 'headers'>;

/**
 * Whether `res` (the answer to `method path` with `who` and `json`) is the answer of no route. A refusal of the caller (401,
 * 403), a success and a server error never are, so these need no probe.
 */
export async function answersAsNoRoute(
  shop: Shop,
  res: ShopResponse,
  request: { method: string; path: string; who: Who; json?: unknown },
): Promise<boolean> {
  if (res.status < 400 || res.status === 401 || res.status === 403 || res.status >= 500) return false;
  if (res.status === 404 || res.status === 405) return true;
  const { method, path, who, json } = request;
  const probes = await probeUnmatched(
    (probe) => shop.http.request(method, probe, { ...who, ...(json !== undefined ? { json } : {}) }),
    path,
    shop.subject(),
  );
  return looksUnmatched(res, probes);
}

/** For failure messages: the answers that counted as no route. */
export const noRouteAnswers = (answers: readonly (readonly [string, ShopResponse])[]): string[] =>
  answers.map(([kind, res]) => `${kind}: ${res.status} ${String(res.body?.error ?? '')}`.trim());
