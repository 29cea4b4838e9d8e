// The create and delete conventions (spec, Endpoints > Conventions; Versioning): creates answer 201 with a `Location` where
// a GET URL exists, deletes 204, and neither is cached. Which operations are creates the spec shows only by example
// (addAddress): the target's description documents say it, an operation whose only declared success is 201 being one.
import { learned } from '../../engine/runner/check.js';
import type { ShopResponse } from '../../engine/transport/http.js';
import { brief, failSoft, parseCacheControl } from '../../lib/assert.js';

type Json = Record<string, unknown>;

/** The success statuses (2xx, or the `2XX` range) the target's documents declare for an operation; empty when undescribed. */
export function declaredSuccesses(operationId: string): string[] {
  const { general, assistant } = learned().documents;
  for (const doc of [general, assistant]) {
    for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
      for (const op of Object.values(item ?? {})) {
        if (typeof op !== 'object' || op === null || (op as Json).operationId !== operationId) continue;
        const responses = ((op as Json).responses ?? {}) as Json;
        return Object.keys(responses).filter((s) => /^2(\d\d|XX)$/i.test(s));
      }
    }
  }
  return [];
}

/** The target declares the operation a create: its one success is 201. */
export const isDeclaredCreate = (operationId: string): boolean => {
  const ok = declaredSuccesses(operationId);
  return ok.length === 1 && ok[0] === '201';
};

/**
 * The answer to a create that succeeded: 201 where the target declares the operation a create (END-CONV-1), a Location
 * where the created resource has a GET URL (END-CONV-2; `getUrl`), and Cache-Control: no-store (END-CONV-9). Judged
 * softly, so that one answer shows every rule it breaks.
 */
export function expectCreateConventions(res: ShopResponse, operationId: string, o: { getUrl?: boolean; what?: string } = {}): void {
  const what = o.what ?? operationId;
  if (res.status < 200 || res.status > 299) return;
  if (isDeclaredCreate(operationId) && res.status !== 201)
    failSoft(`${what}: status of a create (its description declares 201)`, 201, brief(res), { clause: ['END-CONV-1'] });
  if (o.getUrl && res.status === 201 && !res.headers.get('location'))
    failSoft(`${what}: Location of a create whose resource has a GET URL`, 'a Location header', null, { clause: 'END-CONV-2' });
  if (!parseCacheControl(res.headers.get('cache-control')).has('no-store'))
    failSoft(`${what}: Cache-Control of a create`, 'no-store', res.headers.get('cache-control'), { clause: 'END-CONV-9' });
}

/** The answer to a delete that succeeded: 204 with no body (END-CONV-3), and Cache-Control: no-store (END-CONV-9). */
export function expectDeleteConventions(res: ShopResponse, what: string): void {
  if (res.status < 200 || res.status > 299) return;
  if (res.status !== 204 || res.text !== '') failSoft(`${what}: a delete`, '204 with no body', brief(res), { clause: 'END-CONV-3' });
  if (!parseCacheControl(res.headers.get('cache-control')).has('no-store'))
    failSoft(`${what}: Cache-Control of a delete`, 'no-store', res.headers.get('cache-control'), { clause: 'END-CONV-9' });
}
