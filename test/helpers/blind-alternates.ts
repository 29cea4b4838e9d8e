// Blind-written conforming alternates (docs/self-test.md, "Blind authoring"): proxies in front of the reference that change
// only what the spec, and the RFCs it cites (9110, 9111, 9457, 9449, 6750, 7519), leave free. Written from the spec alone by
// authors who do not read the checks; the suite's `spec` level must pass each (test/cli/blind-alternates.test.ts).
// Two optional members beyond the Alternate shape: `profile`, for a deployment whose profile declares its choice, and
// `basePath`, for a deployment served under a path prefix (the run's base URL ends with it, and the reference behind the
// proxy is told its public URL, so that DPoP proofs name the URL the client used).
import type { Profile } from '../../contract/profile.js';
import { splitChallenges, type Alternate } from './alternates.js';
import {
  headerOf,
  withHeader,
  withoutHeader,
  type Fields,
  type ProxyAnswer,
  type ProxyRequest,
  type ProxyRules,
} from './mutating-proxy.js';
import { fixtureProfile } from './reference.js';

export interface BlindAlternate extends Alternate {
  /** The profile the run is given: the deployment's declaration of its choice (default: the fixture profile). */
  profile?: (p: Profile) => Profile;
  /** The path prefix the deployment is served under, e.g. `/shop`: the run's base URL is the proxy's URL plus it. */
  basePath?: string;
}

type Json = Record<string, any>;

const DOCS = new Set(['/openapi.json', '/assistant/openapi.json']);
const pathOf = (path: string) => path.split('?')[0]!;
/** The reference's name of the assistant browser artifact's header (its choice; the spec names the credential only). */
const REFERENCE_BROWSER_HEADER = 'Assistant-Browser-Session';

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The answer's JSON body edited in place by `edit`; answers without a JSON object body go as they came. */
function editBody(a: ProxyAnswer, edit: (doc: Json) => void): ProxyAnswer {
  const doc = parseJson(a.body);
  if (!isObject(doc)) return a;
  edit(doc);
  return { ...a, body: JSON.stringify(doc) };
}

/** Every schema of a document opened to members it does not list (`additionalProperties: false` and the like dropped). */
function openSchemas(node: unknown): void {
  if (Array.isArray(node)) for (const x of node) openSchemas(x);
  if (!isObject(node)) return;
  for (const k of ['additionalProperties', 'unevaluatedProperties']) if (node[k] === false) delete node[k];
  for (const v of Object.values(node)) openSchemas(v);
}

/** A body the reference refuses (an unknown member): what an alternate answers for a shape that is not its own. */
const refused = (body: Json) => JSON.stringify({ ...body, not_this_deployments_shape: true });

/** Rewrites both description documents with `edit`. */
const documents =
  (edit: (doc: Json) => void) =>
  (a: ProxyAnswer, r: ProxyRequest): ProxyAnswer =>
    DOCS.has(pathOf(r.path)) && a.status === 200 ? editBody(a, edit) : a;

function* operations(doc: Json, operationId: string): Generator<Json> {
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>))
    for (const op of Object.values(item)) if (isObject(op) && op.operationId === operationId) yield op;
}

const problemCode = (a: ProxyAnswer): string | undefined => {
  const doc = parseJson(a.body);
  return isObject(doc) && typeof doc.error === 'string' ? doc.error : undefined;
};

// ------------------------------------------------------------------------------------------- the required conventions

/** RFC 9111 §4.2.1: `Expires` minus `Date` is the freshness lifetime when no max-age is given; 300 s as the spec says. */
const docsExpires: BlindAlternate = {
  name: 'description-documents-expires',
  freedom: 'RFC 9111 §4.2.1: the description documents are fresh for 300 s by Expires = Date + 300 s (Cache-Control: public, no max-age)',
  rules: {
    response(a, r) {
      if (!DOCS.has(pathOf(r.path)) || a.status >= 400) return a;
      const date = headerOf(a.headers, 'date') ?? new Date().toUTCString();
      let headers = withHeader(a.headers, 'Date', date);
      headers = withHeader(headers, 'Cache-Control', 'public');
      headers = withHeader(headers, 'Expires', new Date(Date.parse(date) + 300_000).toUTCString());
      return { ...a, headers };
    },
  },
};

/** RFC 6750 §3.1: a 403 for a missing scope may carry `error="insufficient_scope"` with `scope`, in the request's scheme. */
const insufficientScopeChallenge: BlindAlternate = {
  name: 'insufficient-scope-challenge',
  freedom: 'RFC 6750 §3.1: 403 insufficient_scope carries WWW-Authenticate <scheme> error="insufficient_scope", scope="<scope>"',
  rules: {
    response(a, r) {
      if (a.status !== 403 || problemCode(a) !== 'insufficient_scope') return a;
      const doc = parseJson(a.body) as Json;
      const scope = typeof doc.scope === 'string' ? `, scope="${doc.scope}"` : '';
      const dpop = /^DPoP\s/i.test(headerOf(r.headers, 'authorization') ?? '') || pathOf(r.path).startsWith('/assistant/conversations');
      const challenge = dpop ? `DPoP error="insufficient_scope"${scope}, algs="ES256"` : `Bearer error="insufficient_scope"${scope}`;
      return { ...a, headers: withHeader(a.headers, 'WWW-Authenticate', challenge) };
    },
  },
};

const BROWSER_COOKIE = 'shop_agent_session';

/** The Cookie lines of a request without the `name` cookie, and that cookie's value. */
function takeCookie(headers: Fields, name: string): { headers: Fields; value?: string } {
  let value: string | undefined;
  const out: Fields = [];
  for (const [k, v] of headers) {
    if (k.toLowerCase() !== 'cookie') {
      out.push([k, v]);
      continue;
    }
    const kept = v
      .split(';')
      .map((c) => c.trim())
      .filter((c) => {
        const eq = c.indexOf('=');
        if (eq > 0 && c.slice(0, eq) === name) {
          value ??= c.slice(eq + 1);
          return false;
        }
        return c !== '';
      });
    if (kept.length > 0) out.push([k, kept.join('; ')]);
  }
  return { headers: out, value };
}

/** The spec names the browser artifact ("the agent's original browser cookie"), not how it travels: here, as a cookie. */
const browserArtifactCookie: BlindAlternate = {
  name: 'browser-artifact-cookie',
  freedom:
    'the assistant browser artifact travels as the cookie shop_agent_session (security scheme apiKey in cookie); the header form is refused',
  rules: {
    response: documents((doc) => {
      const schemes = doc.components?.securitySchemes;
      if (schemes?.assistantBrowserSession)
        schemes.assistantBrowserSession = {
          type: 'apiKey',
          in: 'cookie',
          name: BROWSER_COOKIE,
          description: "The assistant agent's original browser session, beside the web-agent forwarder's token.",
        };
    }),
    request(req) {
      // The header form means nothing here: dropped, so that a forwarder sending only it brings no artifact.
      const { headers, value } = takeCookie(withoutHeader(req.headers, REFERENCE_BROWSER_HEADER), BROWSER_COOKIE);
      return { ...req, headers: value === undefined ? headers : [...headers, [REFERENCE_BROWSER_HEADER, value]] };
    },
  },
};

const PREFIX = '/shop';

/** Served under /shop: the reverse proxy strips the prefix going in and puts it back on the URLs it answers with. */
const pathPrefix: BlindAlternate = {
  name: 'path-prefix',
  freedom: '{base_url} is the base address of the spec: a deployment under http://host/shop serves every route below it',
  basePath: PREFIX,
  rules: {
    request(req) {
      const path = req.path;
      if (path === PREFIX || path.startsWith(`${PREFIX}/`) || path.startsWith(`${PREFIX}?`))
        return { ...req, path: path.slice(PREFIX.length) || '/' };
      // Outside the deployment: nothing of the service answers there.
      return { ...req, path: `/outside-the-deployment${path.startsWith('/') ? '' : '/'}${path}` };
    },
    response(a, r) {
      let out: ProxyAnswer = {
        ...a,
        headers: a.headers.map(([k, v]): [string, string] =>
          k.toLowerCase() === 'location' && v.startsWith('/') && !v.startsWith(`${PREFIX}/`) ? [k, `${PREFIX}${v}`] : [k, v],
        ),
      };
      const path = pathOf(r.path);
      if ((path === `${PREFIX}/openapi.json` || path === `${PREFIX}/assistant/openapi.json`) && a.status === 200)
        out = editBody(out, (doc) => {
          doc.servers = [{ url: PREFIX, description: 'this deployment' }];
        });
      return out;
    },
  },
};

/** The deployment's own profile declares which audiences its delegated callers use; the other is refused. */
const delegatedApiAudience: BlindAlternate = {
  name: 'delegated-api-audience-only',
  freedom: 'the spec lets a deployment take delegated tokens for the API audience only (declared: audiences.callers.delegated = ["api"])',
  profile: (p) => ({ ...p, audiences: { ...p.audiences, callers: { delegated: ['api'] } } }) as Profile,
  rules: {
    request(req) {
      const m = /^Bearer\s+[\w-]+\.([\w-]+)\.[\w-]*$/i.exec(headerOf(req.headers, 'authorization') ?? '');
      const claims = m ? parseJson(Buffer.from(m[1]!, 'base64url').toString('utf8')) : undefined;
      if (!isObject(claims) || claims.client_id !== fixtureProfile.clients.agentProtocol) return req;
      const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
      // Refused as any unacceptable token is: the service answers 401 invalid_token with its Bearer challenge.
      return aud.includes(fixtureProfile.audiences.agent)
        ? { ...req, headers: withHeader(req.headers, 'Authorization', 'Bearer not.acceptable.here') }
        : req;
    },
  },
};

/** Payload shapes are not shown: this deployment's saved-card checkout takes `{ payment: { paymentMethodId, addressId? } }`. */
const checkoutCamelCase: BlindAlternate = {
  name: 'checkout-camel-case-body',
  freedom:
    'payload shapes are not shown: checkoutSavedCard takes {"payment": {"paymentMethodId", "addressId"}}, described in the documents',
  rules: {
    response: documents((doc) => {
      const id = (role: string) => ({ type: 'string', minLength: 1, maxLength: 64, 'x-shop-role': role });
      for (const op of operations(doc, 'checkoutSavedCard'))
        op.requestBody = {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['payment'],
                additionalProperties: false,
                properties: {
                  payment: {
                    type: 'object',
                    required: ['paymentMethodId'],
                    additionalProperties: false,
                    properties: { paymentMethodId: id('payment-method'), addressId: id('address') },
                  },
                },
              },
              example: { payment: { paymentMethodId: 'pm_0001' } },
            },
          },
        };
    }),
    requestBody(req, body) {
      if (req.method !== 'POST' || pathOf(req.path) !== '/v1/checkouts/saved-card' || Buffer.byteLength(body) > 256 * 1024) return body;
      const json = parseJson(body);
      if (!isObject(json)) return body;
      if (!isObject(json.payment)) return refused(json);
      const { payment, ...rest } = json;
      const { paymentMethodId, addressId, ...more } = payment;
      return JSON.stringify({
        ...rest,
        ...more,
        ...(paymentMethodId !== undefined ? { payment_method_id: paymentMethodId } : {}),
        ...(addressId !== undefined ? { address_id: addressId } : {}),
      });
    },
  },
};

// ----------------------------------------------------------------------------------------------------- choices of our own

/** RFC 6750 §3 and RFC 9110 §11.6.1: a challenge may carry a realm. */
const challengeRealm: BlindAlternate = {
  name: 'challenge-realm',
  freedom: 'RFC 6750 §3: every Bearer and DPoP challenge carries realm="shop" first',
  rules: {
    response(a) {
      const value = headerOf(a.headers, 'www-authenticate');
      if (value === undefined) return a;
      const withRealm = splitChallenges(value)
        .map((c) => {
          const m = /^(Bearer|DPoP)(?:\s+(.*))?$/is.exec(c);
          if (!m || /(^|[\s,])realm=/i.test(m[2] ?? '')) return c;
          return m[2] ? `${m[1]} realm="shop", ${m[2]}` : `${m[1]} realm="shop"`;
        })
        .join(', ');
      return { ...a, headers: withHeader(a.headers, 'WWW-Authenticate', withRealm) };
    },
  },
};

/** RFC 9110 §10.2.3: Retry-After is an HTTP-date or a number of seconds; the spec fixes the value only for 503 (5). */
const retryAfterDate: BlindAlternate = {
  name: 'retry-after-http-date',
  freedom: 'RFC 9110 §10.2.3: the 429 Retry-After is given as an HTTP-date (the same instant), not delay-seconds',
  rules: {
    response(a) {
      const seconds = headerOf(a.headers, 'retry-after');
      if (a.status !== 429 || seconds === undefined || !/^\d+$/.test(seconds)) return a;
      const date = headerOf(a.headers, 'date') ?? new Date().toUTCString();
      // Rounded up to the next whole second of the HTTP-date, so that the client never comes back early.
      const at = new Date(Math.ceil((Date.parse(date) + Number(seconds) * 1000) / 1000) * 1000 + 1000);
      return { ...a, headers: withHeader(withHeader(a.headers, 'Date', date), 'Retry-After', at.toUTCString()) };
    },
  },
};

/** Resources: `detail` is optional on every problem. */
const problemsWithoutDetail: BlindAlternate = {
  name: 'problems-without-detail',
  freedom: 'Resources, problem document: `detail` is not required; no problem carries it',
  rules: {
    response: (a) =>
      /^application\/problem\+json/i.test(headerOf(a.headers, 'content-type') ?? '') ? editBody(a, (doc) => void delete doc.detail) : a,
  },
};

/** RFC 9111 §5.2: the order of Cache-Control directives carries no meaning. */
const cacheDirectiveOrder: BlindAlternate = {
  name: 'cache-directive-order',
  freedom: 'RFC 9111 §5.2: catalog reads say Cache-Control: no-cache, private (the same directives in another order)',
  rules: {
    response: (a) =>
      /^\s*private\s*,\s*no-cache\s*$/i.test(headerOf(a.headers, 'cache-control') ?? '')
        ? { ...a, headers: withHeader(a.headers, 'Cache-Control', 'no-cache, private') }
        : a,
  },
};

/** Errors: the status and code of an unmatched route are not shown; here 404 `route_not_found`, for any method. */
const unmatchedRouteNotFound: BlindAlternate = {
  name: 'unmatched-route-not-found',
  freedom: 'unmatched routes (status and code not shown) answer 404 route_not_found, a known path with another method included',
  rules: {
    response(a) {
      const code = problemCode(a);
      if (!(a.status === 404 && code === 'not_found') && !(a.status === 405 && code === 'method_not_allowed')) return a;
      // The reference's own 404 for a missing resource of a known route keeps its code; only route misses change.
      if (a.status === 404 && !/route|path/i.test((parseJson(a.body) as Json).detail ?? '')) return a;
      const type = `${fixtureProfile.docsUrl.replace(/\/+$/, '')}/api/problems/route_not_found`;
      return {
        ...editBody({ ...a, status: 404 }, (doc) =>
          Object.assign(doc, { status: 404, title: 'Not Found', error: 'route_not_found', type }),
        ),
        headers: withoutHeader(a.headers, 'allow'),
      };
    },
  },
};

// ---------------------------------------------------------------------------------- rare statuses and boundary headers

/**
 * A boundary-wide security middleware (helmet's defaults): every response carries the same four headers and
 * `Vary: Authorization`. None is a challenge, a nonce or a caching directive: the spec's limit on what a domain error may
 * carry is about the headers the domain sets (Retry-After, RateLimit, RateLimit-Policy versus challenges and nonces, which
 * the error mapper alone sets), and RFC 9110 §5.1 / §12.5.5 let any response carry fields the client does not act on.
 */
const securityHeaders: BlindAlternate = {
  name: 'security-headers-everywhere',
  freedom:
    'RFC 9110 §5.1: fields a client does not know are ignored; X-Content-Type-Options, X-Frame-Options, Referrer-Policy, Content-Security-Policy and Vary: Authorization on every response',
  rules: {
    response: (a) => ({
      ...a,
      headers: [
        ...a.headers,
        ['X-Content-Type-Options', 'nosniff'],
        ['X-Frame-Options', 'DENY'],
        ['Referrer-Policy', 'no-referrer'],
        ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
        ['Vary', 'Authorization'],
      ],
    }),
  },
};

/** The caller kind a request presents (unverified), enough to tell a guest: the storefront client with a sub of its own. */
const isGuestRequest = (r: ProxyRequest): boolean => {
  const m = /^Bearer\s+[\w-]+\.([\w-]+)\.[\w-]*$/i.exec(headerOf(r.headers, 'authorization') ?? '');
  const claims = m ? parseJson(Buffer.from(m[1]!, 'base64url').toString('utf8')) : undefined;
  return isObject(claims) && claims.client_id === fixtureProfile.clients.storefront;
};

/**
 * Errors: "Domain errors may carry only the headers `Retry-After`, `RateLimit` and `RateLimit-Policy`": both RateLimit
 * fields are named as allowed. Here every answer to a guest (success or domain error) states its policy (the profile's
 * guest budget and window, draft-ietf-httpapi-ratelimit-headers), and a 429 also says none remains until Retry-After.
 */
const rateLimitHeaders: BlindAlternate = {
  name: 'ratelimit-headers-for-guests',
  freedom:
    'Errors: RateLimit and RateLimit-Policy are allowed on domain errors; every guest answer carries RateLimit-Policy ("guest";q=<budget>;w=<window>), and a 429 RateLimit ("guest";r=0;t=<Retry-After>)',
  rules: {
    response(a, r) {
      const limits = fixtureProfile.rateLimits;
      if (!limits || !isGuestRequest(r)) return a;
      let headers: Fields = [...a.headers, ['RateLimit-Policy', `"guest";q=${limits.guestBudget};w=${limits.guestWindowSeconds}`]];
      const retry = headerOf(a.headers, 'retry-after');
      if (a.status === 429 && retry !== undefined && /^\d+$/.test(retry)) headers = [...headers, ['RateLimit', `"guest";r=0;t=${retry}`]];
      return { ...a, headers };
    },
  },
};

/**
 * RFC 9111 §5.2.2.5: no-store forbids storing whatever other directives come with it; the belt-and-braces spelling older
 * caches are sent (plus HTTP/1.0's `Pragma: no-cache`, RFC 9111 §5.4) still means no-store. Catalog reads and the
 * description documents keep their own values.
 */
const noStoreSpelledLong: BlindAlternate = {
  name: 'no-store-spelled-long',
  freedom:
    'RFC 9111 §5.2.2.5: Cache-Control: no-store may come with other directives; every no-store answer says "private, no-store, no-cache, must-revalidate, max-age=0" and Pragma: no-cache',
  rules: {
    response: (a) =>
      /^\s*no-store\s*$/i.test(headerOf(a.headers, 'cache-control') ?? '')
        ? {
            ...a,
            headers: [
              ...withHeader(a.headers, 'Cache-Control', 'private, no-store, no-cache, must-revalidate, max-age=0'),
              ['Pragma', 'no-cache'],
            ],
          }
        : a,
  },
};

/** RFC 9110 §10.2.1 and §5.6.1: Allow is a list; its order means nothing and OWS around the commas is optional. */
const allowReordered: BlindAlternate = {
  name: 'allow-reordered-compact',
  freedom: 'RFC 9110 §10.2.1, §5.6.1: a 405 Allow lists its methods in reverse order with no space after the commas',
  rules: {
    response: (a) => {
      const allow = headerOf(a.headers, 'allow');
      if (a.status !== 405 || allow === undefined) return a;
      const methods = allow
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean)
        .reverse();
      return { ...a, headers: withHeader(a.headers, 'Allow', methods.join(',')) };
    },
  },
};

/**
 * Resources: `detail` is optional human text (never on internal_error), and RFC 9457 §3.2 allows extension members. Refusals
 * on the rare statuses (402, 409, 429, 431, 503) get a detail of their own and `retry_after` (the Retry-After seconds, when
 * there is one) and `help` (a URL) members; the reserved members (`issues`, `scope`, `conversation_id`) are not touched.
 */
const rareStatusProblemExtras: BlindAlternate = {
  name: 'rare-status-problem-extras',
  freedom:
    'RFC 9457 §3.2 and Resources (detail optional): 402, 409, 429, 431 and 503 problems carry a detail of their own and the extension members retry_after and help (its documents leave objects open)',
  rules: {
    buffer: (a) => /json/i.test(headerOf(a.headers, 'content-type') ?? ''),
    response(a, r) {
      // It documents what it serves: its description documents leave the problem schema open to those members.
      if (/^\/(assistant\/)?openapi\.json$/.test(pathOf(r.path)) && a.status === 200) return editBody(a, openSchemas);
      if (![402, 409, 429, 431, 503].includes(a.status) || !/^application\/problem\+json/i.test(headerOf(a.headers, 'content-type') ?? ''))
        return a;
      const retry = headerOf(a.headers, 'retry-after');
      return editBody(a, (doc) => {
        if (doc.error === 'internal_error') return;
        doc.detail = `This request was refused with ${String(doc.error)}; see the problem type for what to do next.`;
        if (retry !== undefined && /^\d+$/.test(retry)) doc.retry_after = Number(retry);
        doc.help = typeof doc.type === 'string' ? doc.type : fixtureProfile.docsUrl;
      });
    },
  },
};

/**
 * RFC 9110 §10.2.2: Location is a URI-reference, absolute or relative to the target URI; this deployment writes it
 * absolute, on the scheme and authority the request came to (a create's GET URL stays the same resource).
 */
const absoluteLocation: BlindAlternate = {
  name: 'absolute-location',
  freedom: 'RFC 9110 §10.2.2: Location may be an absolute URI; creates answer Location: http://<host>/v1/... (the same URL, written whole)',
  rules: {
    response(a, r) {
      const location = headerOf(a.headers, 'location');
      const host = headerOf(r.headers, 'host');
      if (location === undefined || !location.startsWith('/') || host === undefined) return a;
      return { ...a, headers: withHeader(a.headers, 'Location', `http://${host}${location}`) };
    },
  },
};

/**
 * Errors: "Domain errors may carry only the headers `Retry-After`, `RateLimit` and `RateLimit-Policy`": Retry-After is
 * named as allowed on any of them, and RFC 9110 §10.2.3 lets a 503 say when to come back. Conflicts (409) advise one
 * second, the webhook's 503 webhook_secret_missing (not the outage, whose Retry-After: 5 the spec fixes) advises 60.
 */
const retryAfterOnConflicts: BlindAlternate = {
  name: 'retry-after-on-conflicts',
  freedom:
    'Errors: Retry-After is allowed on domain errors (RFC 9110 §10.2.3); every 409 carries Retry-After: 1 and the webhook 503 webhook_secret_missing Retry-After: 60',
  rules: {
    response(a) {
      if (headerOf(a.headers, 'retry-after') !== undefined) return a;
      if (a.status === 409) return { ...a, headers: [...a.headers, ['Retry-After', '1']] };
      if (a.status === 503 && problemCode(a) === 'webhook_secret_missing') return { ...a, headers: [...a.headers, ['Retry-After', '60']] };
      return a;
    },
  },
};

export const BLIND_ALTERNATES: readonly BlindAlternate[] = [
  docsExpires,
  insufficientScopeChallenge,
  browserArtifactCookie,
  pathPrefix,
  delegatedApiAudience,
  checkoutCamelCase,
  challengeRealm,
  retryAfterDate,
  problemsWithoutDetail,
  cacheDirectiveOrder,
  unmatchedRouteNotFound,
  securityHeaders,
  rateLimitHeaders,
  noStoreSpelledLong,
  allowReordered,
  rareStatusProblemExtras,
  absoluteLocation,
  retryAfterOnConflicts,
];

/** Alternates whose conventions the suite is being taught elsewhere: their failure on a branch without that is expected. */
export const PENDING_CONVENTIONS: ReadonlySet<string> = new Set([
  docsExpires.name,
  insufficientScopeChallenge.name,
  browserArtifactCookie.name,
  pathPrefix.name,
  delegatedApiAudience.name,
  checkoutCamelCase.name,
]);

export type { ProxyRules };
