// In-memory stand-ins for explore's unit tests: a described target whose operations are their ids (addCartItem is a POST
// to /addCartItem/...), bodies made of the roles they are given.
import type { InterleavingOptions } from '../../conformance/explore/concurrency.js';

export const fakeTarget: InterleavingOptions['target'] = {
  operation: (id: string) =>
    ({
      operationId: id,
      method: { addCartItem: 'POST', getCart: 'GET', removeCartItem: 'DELETE' }[id] ?? 'GET',
      path: '',
      pathParams: [],
      document: '/openapi.json',
    }) as ReturnType<InterleavingOptions['target']['operation']>,
  path: (id: string, ...values: string[]) => `/${id}${values.map((v) => `/${v}`).join('')}`,
  body: (_id: string, roles: Record<string, unknown> = {}) => ({ variant_id: roles.variant, quantity: roles.quantity }),
};
