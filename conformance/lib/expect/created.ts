// The create and delete conventions (spec, Endpoints > Conventions; Versioning): creates answer 201 with a `Location` where
// a GET URL exists, deletes 204, and neither is cached. Which operations are creates the spec shows only by example
// (addAddress): the target's description documents say it (conformance/engine/transport/target.ts declaresCreate).
import { failSoft } from './failure.js';
import { parseCacheControl } from './cache.js';
import { brief, type Answer } from './response.js';

/**
 * The answer to a create that succeeded: 201 where the target declares the operation a create (END-CONV-1; `declared`), a
 * Location where the created resource has a GET URL (END-CONV-2; `getUrl`), and Cache-Control: no-store (END-CONV-9).
 * Judged softly, so that one answer shows every rule it breaks.
 */
export function expectCreateConventions(res: Answer, o: { what: string; declared: boolean; getUrl?: boolean }): void {
  const { what } = o;
  if (res.status < 200 || res.status > 299) return;
  if (o.declared && res.status !== 201)
    failSoft(`${what}: status of a create (its description declares 201)`, 201, brief(res), { clause: ['END-CONV-1'] });
  if (o.getUrl && res.status === 201 && !res.headers.get('location'))
    failSoft(`${what}: Location of a create whose resource has a GET URL`, 'a Location header', null, { clause: 'END-CONV-2' });
  if (!parseCacheControl(res.headers.get('cache-control')).has('no-store'))
    failSoft(`${what}: Cache-Control of a create`, 'no-store', res.headers.get('cache-control'), { clause: 'END-CONV-9' });
}

/** The answer to a delete that succeeded: 204 with no body (END-CONV-3), and Cache-Control: no-store (END-CONV-9). */
export function expectDeleteConventions(res: Answer, what: string): void {
  if (res.status < 200 || res.status > 299) return;
  if (res.status !== 204 || res.text !== '') failSoft(`${what}: a delete`, '204 with no body', brief(res), { clause: 'END-CONV-3' });
  if (!parseCacheControl(res.headers.get('cache-control')).has('no-store'))
    failSoft(`${what}: Cache-Control of a delete`, 'no-store', res.headers.get('cache-control'), { clause: 'END-CONV-9' });
}
