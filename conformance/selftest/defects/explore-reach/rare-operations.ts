// Explore-reach defects, family "operations rarely sent": each breaks one clause on a route outside the cart, checkout,
// orders and addresses basics (a catalog read other than search, the payment webhook, a checkout read), so that only a
// search that sends that route sees it. Written from the spec and the contract alone (blind).
import type { ProxyRequest } from '../../proxy.js';
import { notAStream, pathOf, withoutHeader } from '../helpers.js';
import { lenient, type Defect } from '../types.js';
import { isOperation, statefulWire } from '../blind/shared.js';

/** How long the broken checkout-address cache keeps an answer (a typical short read cache). */
const CACHE_MS = 60_000;

export const REACH_RARE_DEFECTS: readonly Defect[] = [
  // "a GET whose `ETag` matches `If-None-Match` answers 304". Broken on listCollections only: the conditional-GET
  // middleware is mounted on the products router, so the collections list answers 200 with its body to a matching tag.
  lenient(
    'reach.rare.collections-if-none-match-ignored',
    'END-CONV-8',
    'listCollections ignores If-None-Match: a matching ETag gets 200 with the body instead of 304',
    () => ({
      request: (r) => (isOperation(r, 'listCollections') ? { ...r, headers: withoutHeader(r.headers, 'if-none-match') } : r),
    }),
  ),
  // "`POST /webhooks/stripe` | provider signature over the raw body | body read as raw bytes". Broken: the body is parsed
  // by the JSON middleware and the signature is checked over its re-serialisation, so a delivery whose bytes are not
  // compact JSON (indented, spaced) fails with 400 invalid_signature; a compact one still verifies.
  lenient(
    'reach.rare.webhook-signature-over-reparsed-json',
    'END-PUBLIC-8',
    'the webhook verifies the signature over JSON.stringify(JSON.parse(body)), not over the raw bytes',
    () => ({
      requestBody(r, body) {
        if (r.method !== 'POST' || pathOf(r) !== '/webhooks/stripe') return body;
        try {
          return JSON.stringify(JSON.parse(body));
        } catch {
          return body;
        }
      },
    }),
  ),
  // "Account data routes under `/v1/me/*` return data of the authenticated account only". Broken on getCheckoutAddress:
  // its answer is kept in a read cache keyed by the URL alone (not by the account), so for a minute every account that
  // reads it gets the address of the first account that did.
  statefulWire(
    'reach.rare.checkout-address-cached-by-url',
    'END-ME-1',
    "getCheckoutAddress answers from a cache keyed by URL only: a second account gets the first account's address",
    () => {
      const cache = new Map<string, { body: string; at: number }>();
      const keyOf = (r: ProxyRequest) => r.path;
      return {
        buffer: notAStream,
        response(a, r) {
          if (!isOperation(r, 'getCheckoutAddress') || a.status !== 200 || a.body === undefined) return a;
          const hit = cache.get(keyOf(r));
          if (hit && Date.now() - hit.at < CACHE_MS) return { ...a, body: hit.body };
          cache.set(keyOf(r), { body: a.body, at: Date.now() });
          return a;
        },
      };
    },
  ),
];
