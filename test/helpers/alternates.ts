// Conforming alternates: proxies in front of the reference that change one thing the spec (and RFC 9110, 9457, 9449 and
// 6750, which it cites) leaves free, so that a deployment built differently but correctly can be simulated. The suite's
// `spec` level must pass each of them. Every freedom also has broken twins: the same rewrite made wrong, which the suite
// must fail, so that a pass of the alternate proves the suite tolerant rather than the proxy idle.
import { createHash, randomBytes } from 'node:crypto';
import { headerOf, mapHeader, withHeader, type Fields, type ProxyAnswer, type ProxyRules } from './mutating-proxy.js';

export interface Alternate {
  name: string;
  /** What the spec or an RFC allows, in a sentence. */
  freedom: string;
  rules: ProxyRules;
}

export interface BrokenTwin {
  name: string;
  /** The alternate it breaks. */
  of: string;
  rules: ProxyRules;
  /** The check that catches it (the run is limited to it) and the clause its failure names. */
  check: string;
  clause: string;
}

// ------------------------------------------------------------------------------------------------------- WWW-Authenticate

const TCHAR = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Splits a WWW-Authenticate value into its challenges as written. The proxy's own small splitter, not the suite's parser
 * (that would prove the suite with itself): a top-level comma followed by `token SP token =`, or by a lone token, starts a
 * challenge; quoted strings are skipped whole.
 */
export function splitChallenges(header: string): string[] {
  const out: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < header.length; i++) {
    const c = header[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === ',' && /^\s*[!#$%&'*+\-.^_`|~0-9A-Za-z]+(\s+[!#$%&'*+\-.^_`|~0-9A-Za-z]+\s*=|\s*(,|$))/.test(header.slice(i + 1))) {
      out.push(header.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(header.slice(start).trim());
  return out.filter((c) => c !== '');
}

/**
 * Rewrites each challenge: its scheme, each auth-param value (quotes included, as written) and the order of its auth-params
 * (written back as `name=value` joined by ", ").
 */
function mapChallenges(
  header: string,
  o: { scheme?: (s: string) => string; param?: (name: string, value: string) => string; order?: <T>(params: T[]) => T[] },
): string[] {
  return splitChallenges(header).map((challenge) => {
    const m = /^(\S+)\s*(.*)$/s.exec(challenge)!;
    const scheme = o.scheme ? o.scheme(m[1]!) : m[1]!;
    const params = [...m[2]!.matchAll(/([!#$%&'*+\-.^_`|~0-9A-Za-z]+)=("(?:[^"\\]|\\.)*"|[^\s,]+)/g)].map(
      ([, name, value]) => [name!, o.param ? o.param(name!, value!) : value!] as const,
    );
    const ordered = o.order ? o.order(params) : params;
    return ordered.length ? `${scheme} ${ordered.map(([name, value]) => `${name}=${value}`).join(', ')}` : scheme;
  });
}

const unquoteTokens = (_name: string, value: string) => {
  const inner = value.startsWith('"') ? value.slice(1, -1) : value;
  return TCHAR.test(inner) ? inner : value;
};

const schemeCase: Record<string, string> = { bearer: 'bearer', dpop: 'dpop' };

function rewriteChallenge(answer: ProxyAnswer, rewrite: (value: string) => string | string[]): ProxyAnswer {
  const lines: Fields = [];
  let done = false;
  for (const [k, v] of answer.headers) {
    if (k.toLowerCase() !== 'www-authenticate') lines.push([k, v]);
    else if (!done) {
      done = true;
      const values = rewrite(v);
      for (const value of Array.isArray(values) ? values : [values]) lines.push([k, value]);
    }
  }
  return { ...answer, headers: lines };
}

const challengeRules = (rewrite: (value: string) => string | string[]): ProxyRules => ({ response: (a) => rewriteChallenge(a, rewrite) });

// -------------------------------------------------------------------------------------------------------- problem bodies

type Doc = Record<string, unknown>;

/** Edits a buffered JSON-object body whose media type matches `mediaType`; any other answer goes as it came. */
function objectBody(answer: ProxyAnswer, mediaType: RegExp, edit: (doc: Doc) => Doc): ProxyAnswer {
  if (answer.body === undefined || !mediaType.test(headerOf(answer.headers, 'content-type') ?? '')) return answer;
  let doc: unknown;
  try {
    doc = JSON.parse(answer.body);
  } catch {
    return answer;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return answer;
  return { ...answer, body: JSON.stringify(edit(doc as Doc)) };
}

/** Every schema of a document opened to members it does not list: `additionalProperties: false` and the like dropped. */
function openSchemas(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openSchemas);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k, v]) => !((k === 'additionalProperties' || k === 'unevaluatedProperties') && v === false))
      .map(([k, v]) => [k, openSchemas(v)]),
  );
}

/**
 * A deployment documents what it serves: an alternate that adds members its documents' schemas close off serves its
 * description documents with those schemas opened (its own word then matches its answers, as `explore` reads it).
 */
const documentingMoreMembers =
  (rewrite: NonNullable<ProxyRules['response']>): NonNullable<ProxyRules['response']> =>
  (a, req) =>
    /^\/(assistant\/)?openapi\.json$/.test(req.path) && a.status === 200
      ? objectBody(a, /json/i, (doc) => openSchemas(doc) as Doc)
      : rewrite(a, req);

function problemBody(answer: ProxyAnswer, edit: (doc: Doc, answer: ProxyAnswer) => Doc): ProxyAnswer {
  return objectBody(answer, /^application\/problem\+json/i, (doc) => edit(doc, answer));
}

// ------------------------------------------------------------------------------------------------------------ request ids

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID: 48-bit millisecond time and 80 random bits, 26 Crockford base32 characters. */
export function ulid(now = Date.now()): string {
  let time = '';
  for (let t = now, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  const random = [...randomBytes(16)].map((b) => CROCKFORD[b % 32]).join('');
  return time + random;
}

function replaceRequestId(answer: ProxyAnswer, instanceOf: (id: string) => string): ProxyAnswer {
  const old = headerOf(answer.headers, 'x-request-id');
  if (old === undefined) return answer;
  const id = `req-${ulid()}`;
  const headers = withHeader(answer.headers, 'X-Request-Id', id);
  return problemBody({ ...answer, headers }, (doc) => (doc.instance === old ? { ...doc, instance: instanceOf(id) } : doc));
}

// -------------------------------------------------------------------------------------------------------------- entity tags

/**
 * The reference's tags under another spelling, `W/"v2-<hash>"`, and If-None-Match translated back, so that a matching tag
 * still gets its 304. `translateBack: false` makes the broken twin: the tags change but the server no longer recognises them.
 */
function etagRules(o: { translateBack: boolean }): ProxyRules {
  const originals = new Map<string, string>();
  const spell = (opaque: string) => {
    const mine = `v2-${createHash('sha256').update(opaque).digest('hex').slice(0, 32)}`;
    originals.set(mine, opaque);
    return mine;
  };
  return {
    request(req) {
      if (!o.translateBack) return req;
      const headers = mapHeader(req.headers, 'if-none-match', (value) =>
        value
          .split(',')
          .map((tag) =>
            tag
              .trim()
              .replace(/^(W\/)?"([^"]*)"$/, (all, weak: string | undefined, opaque: string) =>
                originals.has(opaque) ? `${weak ?? ''}"${originals.get(opaque)}"` : all,
              ),
          )
          .join(', '),
      );
      return { ...req, headers };
    },
    response: (a) => ({
      ...a,
      headers: mapHeader(a.headers, 'etag', (tag) => tag.replace(/^W\/"([^"]*)"$/, (_all, opaque: string) => `W/"${spell(opaque)}"`)),
    }),
  };
}

// ---------------------------------------------------------------------------------------------------------- unmatched route

/**
 * The reference's unmatched-route answers: 404 not_found recognised by its detail (the only one that says so) and 405
 * method_not_allowed (a path served with another method is a route that does not match either).
 */
const UNMATCHED_DETAIL = 'No route matches this path.';

function unmatchedRoute(
  answer: ProxyAnswer,
  to: { status: number; title: string; error: string; type?: (docsBase: string, error: string) => string },
): ProxyAnswer {
  let edited = false;
  const out = problemBody(answer, (doc) => {
    const unmatched = (doc.error === 'not_found' && doc.detail === UNMATCHED_DETAIL) || doc.error === 'method_not_allowed';
    if (!unmatched || typeof doc.type !== 'string') return doc;
    edited = true;
    const docsBase = doc.type.replace(/\/api\/problems\/[a-z_]+$/, '');
    const type = to.type ? to.type(docsBase, to.error) : `${docsBase}/api/problems/${to.error}`;
    return {
      type,
      title: to.title,
      status: to.status,
      error: to.error,
      detail: 'No route is declared for this method and path.',
      instance: doc.instance,
    };
  });
  return edited ? { ...out, status: to.status, headers: out.headers.filter(([k]) => k.toLowerCase() !== 'allow') } : out;
}

const UNKNOWN_ROUTE = { status: 400, title: 'Bad Request', error: 'unknown_route' } as const;

/** The unmatched-route alternate, and `method path` no longer served (sent on to a path the reference does not have). */
function withdrawn(method: string, path: string): ProxyRules {
  return {
    request: (req) => (req.method === method && req.path === path ? { ...req, path: `${path}-withdrawn` } : req),
    response: (a) => unmatchedRoute(a, UNKNOWN_ROUTE),
  };
}

// ---------------------------------------------------------------------------------------------------------- record bodies

/** Routes whose success body the spec shows (webhook) or that are description documents: left as they are. */
const SHOWN_BODIES = /^\/(webhooks\/|openapi\.json|assistant\/openapi\.json)/;

function successObject(answer: ProxyAnswer, path: string, edit: (doc: Doc) => Doc): ProxyAnswer {
  if (answer.status < 200 || answer.status > 299 || SHOWN_BODIES.test(path)) return answer;
  return objectBody(answer, /^application\/json/i, edit);
}

const volatile = (doc: Doc): Doc => ({ ...doc, served_at: new Date().toISOString(), trace: randomBytes(8).toString('hex') });

/**
 * The volatile members, and the second addCartItem with an Idempotency-Key already seen is not applied (sent on as a
 * cart read): the key honoured, which the spec forbids (PUR-IDEM-2).
 */
function idempotencyHonoured(): ProxyRules {
  const seen = new Set<string>();
  return {
    request(req) {
      const key = headerOf(req.headers, 'idempotency-key');
      if (req.method !== 'POST' || req.path !== '/v1/cart/items' || key === undefined) return req;
      if (!seen.has(key)) {
        seen.add(key);
        return req;
      }
      return { ...req, method: 'GET', path: '/v1/cart' };
    },
    response: (a, req) => successObject(a, req.path, volatile),
  };
}

// ------------------------------------------------------------------------------------------------------ the alternates

/**
 * The same media types spelled otherwise: problem documents without the (optional) charset, `application/json;
 * charset=utf-8` as `Application/JSON ;Charset="UTF-8"`, event streams as `Text/Event-Stream ;Charset="UTF-8"`.
 */
const respellMediaType = (value: string) =>
  /^application\/problem\+json/i.test(value)
    ? 'application/problem+json'
    : value
        .replace(
          /^([a-z]+)\/([\w.-]+\+)?(json|event-stream)/i,
          (_all, type: string, suffix: string | undefined, sub: string) =>
            `${type[0]!.toUpperCase()}${type.slice(1)}/${suffix ? suffix[0]!.toUpperCase() + suffix.slice(1) : ''}${sub === 'json' ? 'JSON' : 'Event-Stream'}`,
        )
        .replace(/\s*;\s*charset=("?)([\w-]+)\1/i, (_all, _q: string, charset: string) => ` ;Charset="${charset.toUpperCase()}"`);

export const ALTERNATES: readonly Alternate[] = [
  {
    name: 'challenges-on-separate-lines',
    freedom:
      'RFC 9110 §5.3: a list-based field may be sent as several field lines; each challenge of WWW-Authenticate on its own line, ' +
      'the last first (their order means nothing), and each Cache-Control directive and Allow method on its own line',
    rules: {
      response: (a) => {
        const split = rewriteChallenge(a, (v) => splitChallenges(v).reverse());
        return {
          ...split,
          headers: split.headers.flatMap(([k, v]): Fields =>
            /^(cache-control|allow)$/i.test(k) ? v.split(',').map((item) => [k, item.trim()]) : [[k, v]],
          ),
        };
      },
    },
  },
  {
    name: 'auth-params-as-tokens',
    freedom:
      'RFC 9110 §11.2: an auth-param value is a token or a quoted-string; values that are tokens sent unquoted (error=invalid_token, algs=ES256), the auth-params of a challenge in reverse order',
    rules: challengeRules((v) => mapChallenges(v, { param: unquoteTokens, order: (params) => [...params].reverse() }).join(', ')),
  },
  {
    name: 'lowercase-auth-schemes',
    freedom: 'RFC 9110 §11.1: auth-scheme names are case-insensitive; bearer and dpop',
    rules: challengeRules((v) => mapChallenges(v, { scheme: (s) => schemeCase[s.toLowerCase()] ?? s }).join(', ')),
  },
  {
    name: 'problem-extension-members',
    freedom:
      'RFC 9457 §3.2: problem types may have extension members and clients ignore the ones they do not know; "trace" (a string) and "retry" (an object) on every problem, ahead of the standard members (its documents leave objects open)',
    rules: {
      response: documentingMoreMembers((a) =>
        problemBody(a, (doc) => ({
          trace: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`,
          retry: { advised: doc.status === 429 || doc.status === 503 },
          ...doc,
        })),
      ),
    },
  },
  {
    name: 'media-type-and-header-spelling',
    freedom:
      'RFC 9110 §8.3.1: type, subtype and parameter names are case-insensitive, a parameter value may be quoted, OWS may precede ";" ' +
      '(Application/JSON ;Charset="UTF-8"), and charset is optional (application/problem+json bare); §5.1: field names are ' +
      'case-insensitive (every name in upper case)',
    rules: {
      response: (a) => ({
        ...a,
        headers: a.headers.map(([k, v]) => [k.toUpperCase(), k.toLowerCase() === 'content-type' ? respellMediaType(v) : v]),
      }),
    },
  },
  {
    name: 'chunked-bodies',
    freedom: 'RFC 9112 §6.1, §7.1: a body may be framed by Transfer-Encoding: chunked instead of Content-Length',
    rules: { chunked: true },
  },
  {
    name: 'ulid-request-ids',
    freedom: 'the spec fixes no X-Request-Id format, only that instance equals it; req-<ULID>',
    rules: { response: (a) => replaceRequestId(a, (id) => id) },
  },
  {
    name: 'other-entity-tags',
    freedom: 'RFC 9110 §8.8.3: an entity tag is opaque; W/"v2-<hash>", with If-None-Match still answered 304 for a current tag',
    rules: etagRules({ translateBack: true }),
  },
  {
    name: 'volatile-record-members',
    freedom:
      'spec, Resources: the fields of catalog, cart, checkout, account and order records are not shown; every JSON success object also carries served_at and trace, new on each response (its documents leave objects open)',
    rules: { response: documentingMoreMembers((a, req) => successObject(a, req.path, volatile)) },
  },
  {
    name: 'unmatched-route-400',
    freedom:
      'spec, Errors: the status and code of an unmatched route are not shown; 400 unknown_route, for unknown paths and for methods a path does not take',
    rules: { response: (a) => unmatchedRoute(a, UNKNOWN_ROUTE) },
  },
];

// --------------------------------------------------------------------------------------------------------- broken twins

export const BROKEN_TWINS: readonly BrokenTwin[] = [
  {
    name: 'challenges on separate lines, one without the comma between its params',
    of: 'challenges-on-separate-lines',
    rules: challengeRules((v) => splitChallenges(v).map((c) => c.replace(/",\s*/g, '" '))),
    check: 'errors.no-token',
    clause: 'ERR-TABLE-1',
  },
  {
    name: 'auth-params unquoted even where the value is not a token',
    of: 'auth-params-as-tokens',
    rules: challengeRules((v) =>
      mapChallenges(v, { param: (_n, value) => (value.startsWith('"') ? value.slice(1, -1) : value).replace(/_/g, ' ') }).join(', '),
    ),
    check: 'errors.no-token',
    clause: 'ERR-TABLE-1',
  },
  {
    name: 'another scheme name, not another case (Bearer becomes Bearer2)',
    of: 'lowercase-auth-schemes',
    rules: challengeRules((v) => mapChallenges(v, { scheme: (s) => (s.toLowerCase() === 'bearer' ? 'Bearer2' : s) }).join(', ')),
    check: 'errors.no-token',
    clause: 'ERR-TABLE-1',
  },
  {
    name: 'an extension member the spec reserves: scope on a problem that is not insufficient_scope',
    of: 'problem-extension-members',
    rules: { response: (a) => problemBody(a, (doc) => (doc.error === 'insufficient_scope' ? doc : { ...doc, scope: 'catalog:read' })) },
    check: 'resources.problem.unauthenticated',
    clause: 'RES-PROBLEM-11',
  },
  {
    name: 'another media type, not another spelling (problems as Text/JSON)',
    of: 'media-type-and-header-spelling',
    rules: {
      response: (a) => ({
        ...a,
        headers: mapHeader(a.headers, 'content-type', (v) => (/problem\+json/i.test(v) ? 'Text/JSON ;Charset="UTF-8"' : v)),
      }),
    },
    check: 'resources.problem.unauthenticated',
    clause: 'RES-PROBLEM-1',
  },
  {
    name: 'chunked problem bodies cut short (the last chunk dropped)',
    of: 'chunked-bodies',
    rules: { chunked: true, response: (a) => (a.body !== undefined && a.status >= 400 ? { ...a, body: a.body.slice(0, -1) } : a) },
    check: 'resources.problem.unauthenticated',
    clause: 'RES-PROBLEM-1',
  },
  {
    name: 'request ids replaced in the header but not in instance',
    of: 'ulid-request-ids',
    rules: { response: (a) => replaceRequestId(a, () => `req-${ulid()}`) },
    check: 'resources.problem.unauthenticated',
    clause: 'RES-PROBLEM-8',
  },
  {
    name: 'entity tags respelled but If-None-Match not recognised (no 304 for a current tag)',
    of: 'other-entity-tags',
    rules: etagRules({ translateBack: false }),
    check: 'endpoints.conventions.catalog-validators.listCollections',
    clause: 'END-CONV-8',
  },
  {
    name: 'volatile members, and a Shop-Session header changes the cart read (item_count + 1)',
    of: 'volatile-record-members',
    rules: {
      response: (a, req) =>
        successObject(a, req.path, (doc) =>
          volatile(
            req.path === '/v1/cart' && headerOf(req.headers, 'shop-session') !== undefined && typeof doc.item_count === 'number'
              ? { ...doc, item_count: doc.item_count + 1 }
              : doc,
          ),
        ),
    },
    check: 'authentication.customer.shop-session-ignored',
    clause: 'AUTH-CUST-2',
  },
  {
    name: 'volatile members, and a repeated Idempotency-Key replays instead of adding again',
    of: 'volatile-record-members',
    rules: idempotencyHonoured(),
    check: 'purpose.idempotency-key',
    clause: 'PUR-IDEM-2',
  },
  {
    name: 'unmatched route answered 400 unknown_route with the type of not_found',
    of: 'unmatched-route-400',
    rules: { response: (a) => unmatchedRoute(a, { ...UNKNOWN_ROUTE, type: (base) => `${base}/api/problems/not_found` }) },
    check: 'errors.unmatched-route',
    // Blame is per assertion: a `type` that names another code is the problem document's own clause.
    clause: 'RES-PROBLEM-3',
  },
  {
    name: 'unmatched routes answered 400 unknown_route, and POST /v1/checkout-previews not served',
    of: 'unmatched-route-400',
    rules: withdrawn('POST', '/v1/checkout-previews'),
    check: 'endpoints.checkout.preview-route',
    clause: 'END-OPS-CREATECHECKOUTPREVIEW-1',
  },
  {
    name: 'unmatched routes answered 400 unknown_route, and GET /v1/catalog/collections not served',
    of: 'unmatched-route-400',
    rules: withdrawn('GET', '/v1/catalog/collections'),
    check: 'versioning.operations-under-v1',
    clause: 'VER-PREFIX-1',
  },
];
