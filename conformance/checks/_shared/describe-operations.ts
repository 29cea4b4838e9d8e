// The operations whose routes the spec shows, which every deployment serves, and the routes the two description documents
// declare (their OpenAPI `paths`).
import { OPERATIONS } from '../../../contract/operations.js';
import type { Shop } from '../../engine/runner/check.js';
import { judgeCases } from '../../engine/runner/cases.js';
import type { ShopResponse } from '../../engine/transport/http.js';
import { expectStatus } from '../../lib/assert.js';
import { SPECIAL_PATHS } from '../../../contract/routes.js';

/**
 * Every operation whose route the spec shows (Endpoints > Operations; GET /v1/me): every deployment serves them. The
 * operator and conversation routes are the deployment's own, learned from its documents (a claimed one they lack fails).
 */
export const SHOWN: readonly string[] = OPERATIONS.filter((o) => o.group !== 'operator' && o.group !== 'conversation').map(
  (o) => o.operationId,
);

/** The catalog and cart operations (every caller kind of the storefront list reaches them). */
export const CATALOG_AND_CART = [
  'searchProducts',
  'getProduct',
  'listCollections',
  'getCart',
  'addCartItem',
  'updateCartItem',
  'removeCartItem',
] as const;

/** The two description documents (Versioning: "the general one and the assistant one"), in this order. */
export const DESCRIPTION_PATHS = [SPECIAL_PATHS.getDescription, SPECIAL_PATHS.getAssistantDescription] as const;

/**
 * Each description document read and judged as a case of its own (the two reads at once): served 200 (on `clause`), then
 * `judge` with its path and answer.
 */
export const judgeEachDocument = (
  shop: Shop,
  clause: string,
  judge: (doc: string, res: ShopResponse) => void | Promise<void>,
): Promise<void> =>
  judgeCases(DESCRIPTION_PATHS, async (doc) => {
    const res = await shop.http.get(doc);
    expectStatus(res, 200, { clause });
    await judge(doc, res);
  });

/** Routes of a description document: path (every `{param}` written `{}`) → upper-case methods. */
export type Described = Map<string, Set<string>>;

/** A path with every `{param}` written `{}`, so templates compare whatever their parameters are called. */
export const normalizePath = (p: string) => p.replace(/\{[^}]*\}/g, '{}');

/** The OpenAPI `paths` of both description documents (an empty map where a document has none). */
export async function describedOperations(shop: Shop): Promise<{ doc: string; described: Described; raw: unknown }[]> {
  // Two reads: fetched at once, listed in this order.
  return Promise.all(
    DESCRIPTION_PATHS.map(async (doc) => {
      const res = await shop.http.get(doc);
      const described: Described = new Map();
      const paths = res.body?.paths;
      if (typeof paths === 'object' && paths !== null) {
        for (const [path, item] of Object.entries(paths as Record<string, unknown>)) {
          const methods = new Set(typeof item === 'object' && item !== null ? Object.keys(item).map((m) => m.toUpperCase()) : []);
          described.set(normalizePath(path), methods);
        }
      }
      return { doc, described, raw: res.body };
    }),
  );
}
