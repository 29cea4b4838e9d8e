// Self-described conforming alternates: proxies in front of the reference that choose differently where the spec says
// "not shown" (request bodies, the routes under /v1/ops/*, the header names of agent artifacts) and publish the choice in
// their own description documents, as a deployment does. The suite at `spec` level must learn each choice from the
// documents and pass. Each alternate refuses the reference's own shape, so that a pass proves the suite used the learned one.
import { headerOf, withoutHeader, type Fields, type ProxyRules } from './mutating-proxy.js';

type Json = Record<string, any>;

export interface DescribedAlternate {
  name: string;
  /** The choice, in a sentence. */
  choice: string;
  rules: ProxyRules;
}

const DOCS = new Set(['/openapi.json', '/assistant/openapi.json']);
const pathOf = (url: string) => url.split('?')[0]!;
/** A body the reference refuses as invalid (an unknown member): what an alternate answers to a shape it does not take. */
const refused = (body: unknown) =>
  JSON.stringify({
    ...(typeof body === 'object' && body !== null && !Array.isArray(body) ? body : { body }),
    not_this_deployments_shape: true,
  });

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Rewrites the description documents in an answer with `edit` (both documents; operations are found by operationId). */
function documents(edit: (doc: Json) => void): Pick<ProxyRules, 'response'> {
  return {
    response(answer, req) {
      if (!DOCS.has(pathOf(req.path)) || answer.status !== 200 || answer.body === undefined) return answer;
      const doc = JSON.parse(answer.body) as Json;
      edit(doc);
      return { ...answer, body: JSON.stringify(doc) };
    },
  };
}

/** Every operation object of a document with the given operationId, with its path key. */
function* operations(doc: Json, operationId: string): Generator<{ path: string; method: string; op: Json }> {
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item))
      if (op && typeof op === 'object' && op.operationId === operationId) yield { path, method, op };
  }
}

function setBody(doc: Json, operationId: string, schema: Json, example: unknown): void {
  for (const { op } of operations(doc, operationId))
    op.requestBody = { required: true, content: { 'application/json': { schema, example } } };
}

// ------------------------------------------------------------------------------------------------------ cart bodies

/** addCartItem takes `{ item: { sku, count } }` and updateCartItem `{ count }`; the reference's `{ variant_id, quantity }` is refused. */
export const cartBodies: DescribedAlternate = {
  name: 'other cart bodies',
  choice: 'addCartItem { item: { sku, count } }, updateCartItem { count } (bodies are not shown by the spec)',
  rules: {
    ...documents((doc) => {
      setBody(
        doc,
        'addCartItem',
        {
          type: 'object',
          required: ['item'],
          additionalProperties: false,
          properties: {
            item: {
              type: 'object',
              required: ['sku'],
              additionalProperties: false,
              properties: {
                sku: { type: 'string', 'x-shop-role': 'variant' },
                count: { type: 'integer', minimum: 1, maximum: 99, default: 1, 'x-shop-role': 'quantity' },
              },
            },
          },
        },
        { item: { sku: 'var_0101', count: 1 } },
      );
      setBody(
        doc,
        'updateCartItem',
        {
          type: 'object',
          required: ['count'],
          additionalProperties: false,
          properties: { count: { type: 'integer', minimum: 1, maximum: 99, 'x-shop-role': 'quantity' } },
        },
        { count: 2 },
      );
    }),
    requestBody(req, body) {
      // Over the 256 KiB cap the body goes as it came, so that the service refuses it for its size, as it must.
      if (Buffer.byteLength(body) > 256 * 1024) return body;
      const path = pathOf(req.path);
      const json = parse(body) as Json | undefined;
      if (json === undefined || typeof json !== 'object' || json === null || Array.isArray(json)) return body;
      // A body too deep to write again (JSON.stringify's stack) goes as it came, refused by the service as it must be.
      try {
        if (req.method === 'POST' && path === '/v1/cart/items') {
          if (typeof json.item !== 'object' || json.item === null) return refused(json);
          const { item, ...rest } = json;
          const { sku, count, ...more } = item as Json;
          return JSON.stringify({ ...rest, ...more, variant_id: sku, ...(count !== undefined ? { quantity: count } : {}) });
        }
        if (req.method === 'PATCH' && path.startsWith('/v1/cart/items/')) {
          if (!('count' in json)) return refused(json);
          const { count, ...rest } = json;
          return JSON.stringify({ ...rest, quantity: count });
        }
      } catch {
        return body;
      }
      return body;
    },
  },
};

// -------------------------------------------------------------------------------------------------------- ops routes

/** The alternate's operator routes (still under /v1/ops/*, as the spec requires) → the reference's. */
const OPS_ROUTES: [RegExp, (m: RegExpMatchArray) => string, string, string][] = [
  // [alternate path, to the reference's path, the reference's template, the alternate's template]
  [/^\/v1\/ops\/order-search$/, () => '/v1/ops/orders', '/v1/ops/orders', '/v1/ops/order-search'],
  [
    /^\/v1\/ops\/order\/([^/]+)\/cancel$/,
    (m) => `/v1/ops/orders/${m[1]}/cancellation`,
    '/v1/ops/orders/{id}/cancellation',
    '/v1/ops/order/{id}/cancel',
  ],
  [
    /^\/v1\/ops\/order\/([^/]+)\/refund$/,
    (m) => `/v1/ops/orders/${m[1]}/refunds`,
    '/v1/ops/orders/{id}/refunds',
    '/v1/ops/order/{id}/refund',
  ],
  [/^\/v1\/ops\/order\/([^/]+)$/, (m) => `/v1/ops/orders/${m[1]}`, '/v1/ops/orders/{id}', '/v1/ops/order/{id}'],
  [
    /^\/v1\/ops\/stock\/([^/]+)$/,
    (m) => `/v1/ops/variants/${m[1]}/stock-adjustments`,
    '/v1/ops/variants/{id}/stock-adjustments',
    '/v1/ops/stock/{id}',
  ],
];

export const opsRoutes: DescribedAlternate = {
  name: 'other operator routes',
  choice: 'operator operations at /v1/ops/order-search, /v1/ops/order/{id}, …/cancel, …/refund, /v1/ops/stock/{id} (not shown by the spec)',
  rules: {
    ...documents((doc) => {
      for (const [, , from, to] of OPS_ROUTES) {
        if (!doc.paths?.[from]) continue;
        doc.paths[to] = doc.paths[from];
        delete doc.paths[from];
      }
    }),
    request(req) {
      const [path, query] = req.path.split('?') as [string, string | undefined];
      const suffix = query === undefined ? '' : `?${query}`;
      for (const [pattern, to] of OPS_ROUTES) {
        const m = path.match(pattern);
        if (m) return { ...req, path: to(m) + suffix };
      }
      // The reference's own operator paths are not routes of this deployment.
      if (path.startsWith('/v1/ops/')) return { ...req, path: `/v1/ops/not-a-route-here${path.slice('/v1/ops'.length)}${suffix}` };
      return req;
    },
  },
};

// ------------------------------------------------------------------------------------------------------ header names

const HEADERS: [alternate: string, reference: string, scheme: string][] = [
  ['X-Agent-Context', 'Invited-Agent-Context', 'invitedAgentContext'],
  ['X-Assistant-Browser', 'Assistant-Browser-Session', 'assistantBrowserSession'],
];

export const headerNames: DescribedAlternate = {
  name: 'other artifact header names',
  choice: 'the invited-agent context in X-Agent-Context, an assistant browser session in X-Assistant-Browser (header names not shown)',
  rules: {
    ...documents((doc) => {
      for (const [alternate, , scheme] of HEADERS) {
        const s = doc.components?.securitySchemes?.[scheme];
        if (s) s.name = alternate;
      }
    }),
    request(req) {
      let headers: Fields = req.headers;
      for (const [alternate, reference] of HEADERS) {
        // The reference's header names mean nothing here: dropped, as any unknown header would be.
        headers = withoutHeader(headers, reference);
        const value = headerOf(req.headers, alternate);
        headers = withoutHeader(headers, alternate);
        if (value !== undefined) headers = [...headers, [reference, value]];
      }
      return { ...req, headers };
    },
  },
};

// ------------------------------------------------------------------------------------------ conversation open body

export const conversationOpenBody: DescribedAlternate = {
  name: 'another conversation-open body',
  choice: 'openConversation { kind, subject } instead of { mode, topic } (conversation payloads are not shown)',
  rules: {
    ...documents((doc) => {
      setBody(
        doc,
        'openConversation',
        {
          type: 'object',
          required: ['kind'],
          additionalProperties: false,
          properties: { kind: { type: 'string', enum: ['direct', 'handoff'] }, subject: { type: 'string', minLength: 1, maxLength: 200 } },
        },
        { kind: 'direct', subject: 'Where is my order?' },
      );
    }),
    requestBody(req, body) {
      if (req.method !== 'POST' || pathOf(req.path) !== '/assistant/conversations') return body;
      const json = parse(body) as Json | undefined;
      if (json === undefined || typeof json !== 'object' || json === null || Array.isArray(json)) return body;
      if (!('kind' in json)) return refused(json);
      const { kind, subject, ...rest } = json;
      return JSON.stringify({ ...rest, mode: kind, ...(subject !== undefined ? { topic: subject } : {}) });
    },
  },
};

export const DESCRIBED_ALTERNATES: readonly DescribedAlternate[] = [cartBodies, opsRoutes, headerNames, conversationOpenBody];
