// Catalog reads [PUR-SERVE-1]: searchProducts, getProduct, listCollections. Weak ETags and 304s come from the output stage
// ([END-CONV-6], [END-CONV-8]).
import { collectionListSchema, getProductParams, productPageSchema, productSchema, searchProductsQuery } from '../schemas/catalog.js';
import { getProductByHandle, listCollections, searchProducts } from '../store/catalog.js';
import { ProblemError } from '../problem.js';
import { defineRoute } from './define.js';
import { decodeCursor, encodeCursor } from '../cursor.js';

/**
 * The answer of a kept page (store/catalog.ts), one frozen object per page: the output stage validates, serialises and
 * hashes it once, not on every read of an unchanged catalog. The page's key holds its offset and limit, so its cursor is
 * the same for every read of it.
 */
const PAGE_BODIES = new WeakMap<object, object>();

function pageBody(page: ReturnType<typeof searchProducts>, offset: number, limit: number): object {
  const known = PAGE_BODIES.get(page);
  if (known) return known;
  const body = { items: page.items, next_cursor: page.more ? encodeCursor(offset + limit) : null };
  if (Object.isFrozen(page)) PAGE_BODIES.set(page, Object.freeze(body));
  return body;
}

export const catalogRoutes = [
  defineRoute({
    // [END-OPS-SEARCHPRODUCTS-1] GET /v1/catalog/products, the storefront list, catalog:read (contract/operations.ts).
    operationId: 'searchProducts',
    summary: 'Search the catalog',
    query: searchProductsQuery,
    success: { status: 200, schema: productPageSchema, description: 'A page of products.' },
    validators: true,
    handle: ({ domain, input }) => {
      const offset = decodeCursor(input.query.cursor);
      const page = searchProducts(domain.db, { text: input.query.q, collection: input.query.collection, offset, limit: input.query.limit });
      return { status: 200, body: pageBody(page, offset, input.query.limit) };
    },
  }),
  defineRoute({
    // [END-OPS-GETPRODUCT-1] GET /v1/catalog/products/{handle}, the storefront list, catalog:read (contract/operations.ts).
    operationId: 'getProduct',
    summary: 'Read one product by handle',
    params: getProductParams,
    success: { status: 200, schema: productSchema, description: 'The product with its variants.' },
    errors: ['not_found'],
    validators: true,
    handle: ({ domain, input }) => {
      const product = getProductByHandle(domain.db, input.params.handle);
      if (!product) throw new ProblemError('not_found', { detail: 'No product has this handle.' });
      return { status: 200, body: product };
    },
  }),
  defineRoute({
    // [END-OPS-LISTCOLLECTIONS-1] GET /v1/catalog/collections, the storefront list, catalog:read (contract/operations.ts).
    operationId: 'listCollections',
    summary: 'List collections',
    success: { status: 200, schema: collectionListSchema, description: 'Every collection.' },
    validators: true,
    handle: ({ domain }) => ({ status: 200, body: { items: listCollections(domain.db) } }),
  }),
];
