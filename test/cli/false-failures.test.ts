// Freedoms a conforming deployment takes that the suite once failed, each proven both ways on the checks concerned: the
// reference behind a proxy that takes the freedom passes them at the spec level; the same proxy taking it wrongly fails
// them, naming the clause that owns the fault (and only that clause, where blame must not spread).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { behindProxy } from '../helpers/behind-proxy.js';
import { cli, outputDir, readReport, type Report } from '../helpers/cli.js';
import { rotatingProfilePath } from '../helpers/reference.js';
import { headerOf, mapHeader, withHeader, withoutHeader, type ProxyRules } from '../helpers/mutating-proxy.js';

type Json = Record<string, any>;

const DOCS = new Set(['/openapi.json', '/assistant/openapi.json']);
const pathOf = (url: string) => url.split('?')[0]!;
const errorOf = (body: string | undefined): unknown => {
  try {
    return (JSON.parse(body ?? '') as Json).error;
  } catch {
    return undefined;
  }
};

/** Rewrites both description documents. */
const documents =
  (edit: (doc: Json) => void): NonNullable<ProxyRules['response']> =>
  (answer, req) => {
    if (!DOCS.has(pathOf(req.path)) || answer.status !== 200 || answer.body === undefined) return answer;
    const doc = JSON.parse(answer.body) as Json;
    edit(doc);
    return { ...answer, body: JSON.stringify(doc) };
  };

interface Expect {
  /** Checks that must have failed, each naming this clause. */
  failed?: [check: string, clause: string][];
  /** Clauses the run must not fail (blame kept to its owner). */
  notFailed?: string[];
}

async function run(
  rules: ProxyRules,
  checks: string[],
  o: { level?: 'spec' | 'reference'; prefix?: string } = {},
): Promise<{ code: number | null; report: Report | undefined; out: string }> {
  return behindProxy(rules, async (url) => {
    const dir = outputDir();
    const grep = checks.map((id) => `\\[${id.replace(/\./g, '\\.')}\\]`).join('|');
    const r = await cli([
      'run',
      '--base-url',
      url + (o.prefix ?? ''),
      '--profile',
      rotatingProfilePath(),
      '--level',
      o.level ?? 'spec',
      '--grep',
      grep,
      '--reporter',
      'list',
      '--output',
      dir,
      '--no-doctor',
    ]);
    let report: Report | undefined;
    try {
      report = readReport(dir);
    } catch {
      report = undefined;
    }
    return { code: r.code, report, out: r.out };
  });
}

function describeRun(r: { report: Report | undefined; out: string }): string {
  const bad = r.report?.checks.filter((c) => c.status !== 'passed') ?? [];
  return bad.map((c) => `  ${c.status} [${c.id}] ${c.reason?.split('\n')[0] ?? ''}`).join('\n') || r.out.slice(-3000);
}

async function expectPass(rules: ProxyRules, checks: string[], o: Parameters<typeof run>[2] = {}): Promise<void> {
  const r = await run(rules, checks, o);
  assert.equal(r.code, 0, describeRun(r));
  const ran = r.report!.checks.filter((c) => c.status === 'passed').map((c) => c.id);
  assert.deepEqual(ran.sort(), [...checks].sort(), `every check ran and passed:\n${describeRun(r)}`);
}

async function expectFail(rules: ProxyRules, checks: string[], want: Expect, o: Parameters<typeof run>[2] = {}): Promise<void> {
  const r = await run(rules, checks, o);
  assert.equal(r.code, 1, describeRun(r));
  for (const [id, clause] of want.failed ?? []) {
    const c = r.report!.checks.find((x) => x.id === id);
    assert.equal(c?.status, 'failed', `${id}: ${c?.status ?? 'not run'}\n${describeRun(r)}`);
    assert.match(c!.reason ?? '', new RegExp(`\\[[^\\]]*\\b${clause}\\b[^\\]]*\\]`), `${id} should name ${clause}: ${c!.reason}`);
  }
  for (const clause of want.notFailed ?? []) {
    const verdict = r.report!.clauses.find((c) => c.id === clause)?.verdict;
    assert.notEqual(verdict, 'failed', `${clause} must not be failed:\n${describeRun(r)}`);
  }
}

// ------------------------------------------------------------------------------------------------------------ freshness

/** The description documents stated fresh for `seconds` with Expires (and Date), Cache-Control: public without max-age. */
const expiresIn = (seconds: number): ProxyRules => ({
  response: (answer, req) => {
    if (!DOCS.has(pathOf(req.path))) return answer;
    const now = Math.floor(Date.now() / 1000) * 1000;
    let headers = withHeader(answer.headers, 'Cache-Control', 'public');
    headers = withHeader(headers, 'Date', new Date(now).toUTCString());
    headers = withHeader(headers, 'Expires', new Date(now + seconds * 1000).toUTCString());
    return { ...answer, headers };
  },
});
const FRESHNESS_CHECKS = ['endpoints.public.openapi', 'endpoints.public.assistant-openapi', 'limits.description-cache'];

// ------------------------------------------------------------------------------------------- insufficient_scope challenge

const challengeOn = (code: string): ProxyRules => ({
  response: (answer) =>
    errorOf(answer.body) === code
      ? { ...answer, headers: withHeader(answer.headers, 'WWW-Authenticate', 'Bearer error="insufficient_scope"') }
      : answer,
});

// ------------------------------------------------------------------------------------------------- browser session cookie

const COOKIE = 'shop_asb';
const REFERENCE_HEADER = 'Assistant-Browser-Session';
/** The browser session declared (and, when `honoured`, taken) as a cookie; the reference's header means nothing here. */
const browserCookie = (honoured: boolean): ProxyRules => ({
  response: documents((doc) => {
    const s = doc.components?.securitySchemes?.assistantBrowserSession;
    if (s) Object.assign(s, { in: 'cookie', name: COOKIE });
  }),
  request(req) {
    let headers = withoutHeader(req.headers, REFERENCE_HEADER);
    const cookie = headerOf(req.headers, 'cookie');
    const value = cookie
      ?.split(';')
      .map((c) => c.trim())
      .find((c) => c.startsWith(`${COOKIE}=`))
      ?.slice(COOKIE.length + 1);
    if (honoured && value !== undefined) headers = withHeader(withoutHeader(headers, 'cookie'), REFERENCE_HEADER, value);
    return { ...req, headers };
  },
});
const COOKIE_CHECKS = [
  'authentication.agents.assistant.forwarders-need-one-artifact',
  'authentication.agents.assistant.forwarded',
  'authentication.dpop.conversations.browser-session',
];

// ------------------------------------------------------------------------------------------------------------ path prefix

const PREFIX = '/shop';
/** The deployment at <host>/shop: paths outside the prefix are not its routes; `prefixed` says whether Location keeps the prefix. */
const pathPrefix = (prefixed: boolean): ProxyRules => ({
  request: (req) => ({
    ...req,
    path: req.path.startsWith(`${PREFIX}/`) ? req.path.slice(PREFIX.length) : `/outside-the-prefix${req.path}`,
  }),
  response: (answer) => ({
    ...answer,
    headers: prefixed ? mapHeader(answer.headers, 'location', (v) => (v.startsWith('/') ? PREFIX + v : v)) : answer.headers,
  }),
});

// ------------------------------------------------------------------------------------------------------- checkout body

/** checkoutSavedCard takes `{ payment: { methodId }, shipping?: { addressId } }`; the reference's members are refused. */
const nestedCheckoutBody: ProxyRules = {
  response: documents((doc) => {
    for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>))
      for (const op of Object.values(item))
        if (op?.operationId === 'checkoutSavedCard')
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
                      required: ['methodId'],
                      properties: { methodId: { type: 'string', minLength: 1, 'x-shop-role': 'payment-method' } },
                    },
                    shipping: { type: 'object', properties: { addressId: { type: 'string', minLength: 1, 'x-shop-role': 'address' } } },
                  },
                },
                example: { payment: { methodId: 'pm_example' } },
              },
            },
          };
  }),
  requestBody(req, body) {
    if (req.method !== 'POST' || pathOf(req.path) !== '/v1/checkouts/saved-card') return body;
    const json = JSON.parse(body) as Json;
    if (typeof json?.payment?.methodId !== 'string') return JSON.stringify({ ...json, not_this_deployments_shape: true });
    return JSON.stringify({
      payment_method_id: json.payment.methodId,
      ...(json.shipping?.addressId !== undefined ? { address_id: json.shipping.addressId } : {}),
    });
  },
};
const CART_EMPTY_CHECKS = ['errors.domain-errors.no-challenge', 'endpoints.errors.checkout.cart-empty'];

describe('conforming freedoms pass; the same freedom taken wrongly fails its own clause', { concurrency: 1 }, () => {
  test('freshness stated with Expires 300 s after Date passes END-PUBLIC-3/5 and LIM-DOCS-1', { timeout: 180_000 }, () =>
    expectPass(expiresIn(300), FRESHNESS_CHECKS),
  );
  test('freshness stated with Expires 60 s after Date fails them', { timeout: 180_000 }, () =>
    expectFail(expiresIn(60), FRESHNESS_CHECKS, {
      failed: [
        ['endpoints.public.openapi', 'END-PUBLIC-3'],
        ['endpoints.public.assistant-openapi', 'END-PUBLIC-5'],
        ['limits.description-cache', 'LIM-DOCS-1'],
      ],
    }),
  );

  test('an RFC 6750 challenge on insufficient_scope passes at the spec level', { timeout: 180_000 }, () =>
    expectPass(challengeOn('insufficient_scope'), ['resources.problem.insufficient-scope', 'errors.failures.problem-document']),
  );
  test('... and fails the reference level, where the reference sends none', { timeout: 180_000 }, () =>
    expectFail(
      challengeOn('insufficient_scope'),
      ['errors.insufficient-scope.no-challenge.reference'],
      {
        failed: [['errors.insufficient-scope.no-challenge.reference', 'ERR-TABLE-9']],
      },
      { level: 'reference' },
    ),
  );
  test('a challenge on a domain error (cart_empty) still fails ERR-PROBLEM-8', { timeout: 180_000 }, () =>
    expectFail(challengeOn('cart_empty'), ['errors.domain-errors.no-challenge'], {
      failed: [['errors.domain-errors.no-challenge', 'ERR-PROBLEM-8']],
      notFailed: ['ERR-TABLE-14'],
    }),
  );

  test('the browser session declared and taken as a cookie passes', { timeout: 180_000 }, () =>
    expectPass(browserCookie(true), COOKIE_CHECKS),
  );
  test('a cookie declared but not honoured fails', { timeout: 180_000 }, () =>
    expectFail(browserCookie(false), ['authentication.agents.assistant.forwarded'], {
      failed: [['authentication.agents.assistant.forwarded', 'AUTH-CRED-8']],
    }),
  );

  test('behind a path prefix, a Location that carries the prefix passes END-CONV-2', { timeout: 180_000 }, () =>
    expectPass(pathPrefix(true), ['endpoints.checkout.created-location'], { prefix: PREFIX }),
  );
  test('... and at the reference level too', { timeout: 180_000 }, () =>
    expectPass(pathPrefix(true), ['endpoints.checkout.saved-card.reference', 'purpose.checkout.idempotency.reference'], {
      prefix: PREFIX,
      level: 'reference',
    }),
  );
  test('behind a path prefix, a Location without it fails END-CONV-2', { timeout: 180_000 }, () =>
    expectFail(
      pathPrefix(false),
      ['endpoints.checkout.created-location'],
      { failed: [['endpoints.checkout.created-location', 'END-CONV-2']] },
      {
        prefix: PREFIX,
      },
    ),
  );

  test('a nested camelCase checkout body, declared, passes ERR-TABLE-14', { timeout: 180_000 }, () =>
    expectPass(nestedCheckoutBody, CART_EMPTY_CHECKS),
  );
  test('Cache-Control dropped from every answer fails ERR-PROBLEM-5 alone, not ERR-TABLE-14', { timeout: 180_000 }, () =>
    expectFail(
      {
        ...nestedCheckoutBody,
        response: (answer, req) => {
          const a = nestedCheckoutBody.response!(answer, req);
          return { ...a, headers: withoutHeader(a.headers, 'cache-control') };
        },
      },
      CART_EMPTY_CHECKS,
      { failed: [['endpoints.errors.checkout.cart-empty', 'ERR-PROBLEM-5']], notFailed: ['ERR-TABLE-14'] },
    ),
  );
});
