// The operations of the catalog and the cart, which every deployment serves, and the routes the two description documents
// declare (their OpenAPI `paths`).
import type { Shop } from '../../engine/check.js';

/** The catalog and cart operations, which every deployment serves (account, checkout and operator routes have checks of their own). */
export const SERVED = [
  'searchProducts',
  'getProduct',
  'listCollections',
  'getCart',
  'addCartItem',
  'updateCartItem',
  'removeCartItem',
] as const;

/** Routes of a description document: path (every `{param}` written `{}`) → upper-case methods. */
export type Described = Map<string, Set<string>>;

/** A path with every `{param}` written `{}`, so templates compare whatever their parameters are called. */
export const normalizePath = (p: string) => p.replace(/\{[^}]*\}/g, '{}');

/** The OpenAPI `paths` of both description documents (an empty map where a document has none). */
export async function describedOperations(shop: Shop): Promise<{ doc: string; described: Described; raw: unknown }[]> {
  const out: { doc: string; described: Described; raw: unknown }[] = [];
  for (const doc of ['/openapi.json', '/assistant/openapi.json']) {
    const res = await shop.http.get(doc);
    const described: Described = new Map();
    const paths = res.body?.paths;
    if (typeof paths === 'object' && paths !== null) {
      for (const [path, item] of Object.entries(paths as Record<string, unknown>)) {
        const methods = new Set(typeof item === 'object' && item !== null ? Object.keys(item).map((m) => m.toUpperCase()) : []);
        described.set(normalizePath(path), methods);
      }
    }
    out.push({ doc, described, raw: res.body });
  }
  return out;
}
