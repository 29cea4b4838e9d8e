// Catalog reads [PUR-SERVE-1]: searchProducts, getProduct, listCollections. Weak ETags and 304s come from the output stage
// ([END-CONV-6], [END-CONV-8]).
import { collectionListSchema, getProductParams, productPageSchema, productSchema, searchProductsQuery } from '../schemas/catalog.js';
import { getProductByHandle, listCollections, searchProducts } from '../store/catalog.js';
import { ProblemError } from '../problem.js';
import { defineRoute } from './define.js';
import { decodeCursor, encodeCursor } from '../cursor.js';

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
      return { status: 200, body: { items: page.items, next_cursor: page.more ? encodeCursor(offset + input.query.limit) : null } };
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
