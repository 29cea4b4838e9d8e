// Blind defects of "What the service does" (spec part 1): each breaks one rule for one caller kind or one route.
import { readFileSync } from 'node:fs';
import type { ProxyAnswer, ProxyRequest } from '../../proxy.js';
import { editJson, headerOf, jsonSegment, notAStream, pathOf, problemAnswer, withHeader } from '../helpers.js';
import { wire, wireWith, type Defect } from '../types.js';
import { fixtureSeedFile, isOperation, kindOf, statefulWire } from './shared.js';

/** The email of each account of the fixture seed: what a server that leaks it would put in the banner. */
const seedEmails = (): Map<string, string> => {
  try {
    const seed = JSON.parse(readFileSync(fixtureSeedFile(), 'utf8')) as {
      accounts?: { sub: string; email?: string | null }[];
    };
    return new Map((seed.accounts ?? []).flatMap((a) => (a.email ? [[a.sub, a.email] as [string, string]] : [])));
  } catch {
    return new Map();
  }
};

/** The subject an invited-agent context speaks for (unverified). */
const invitedSubject = (r: ProxyRequest, header: string): string | undefined => {
  const ctx = headerOf(r.headers, header)?.split('.')[1];
  const sub = ctx ? jsonSegment(ctx)?.sub : undefined;
  return typeof sub === 'string' ? sub : undefined;
};

export const BLIND_PURPOSE_DEFECTS: readonly Defect[] = [
  // "Identity reads for an agent banner return only the account display name, never the customer's email."
  // Broken for invited agents only: their identity read also carries the account's email.
  wireWith(
    'blind.purpose.identity-email-invited-agent',
    'PUR-BANNER-2',
    "getIdentity answers an invited agent with the customer's email beside the display name",
    (ctx) => {
      const emails = seedEmails();
      const header = ctx.profile.conventions?.headers?.invitedAgentContext ?? 'Invited-Agent-Context';
      return (a, r) => {
        if (a.status !== 200 || !isOperation(r, 'getIdentity') || kindOf(ctx.profile, r) !== 'invited-agent') return a;
        const sub = invitedSubject(r, header) ?? 'customer';
        return editJson(a, (b) => {
          b.email = emails.get(sub) ?? `${sub}@example.com`;
        });
      };
    },
  ),
  // "A request that carries `Idempotency-Key` is accepted and the header is ignored." Broken on the order-placing route
  // only: the key is refused there as unsupported.
  wireWith(
    'blind.purpose.idempotency-key-refused-on-checkout',
    'PUR-IDEM-1',
    'checkoutSavedCard refuses a request carrying Idempotency-Key with 400 invalid_request',
    (ctx) => (a, r) => {
      if (!isOperation(r, 'checkoutSavedCard') || headerOf(r.headers, 'idempotency-key') === undefined) return a;
      return editJson(problemAnswer(ctx, a, 400, 'invalid_request', 'Bad Request'), (b) => {
        b.detail = 'Idempotency-Key is not supported on this operation.';
        b.issues = [{ path: 'header/Idempotency-Key', code: 'unsupported', message: 'Idempotency-Key is not supported.' }];
      });
    },
  ),
  // "A request that carries `Idempotency-Key` is accepted and the header is ignored; retrying ... places another order."
  // Broken on addAddress: a repeated key replays the first answer and the repeat is never processed.
  statefulWire(
    'blind.purpose.idempotency-replay-add-address',
    'PUR-IDEM-2',
    'addAddress replays the stored 201 for a repeated Idempotency-Key instead of processing the request',
    () => {
      const stored = new Map<string, ProxyAnswer>();
      const replays = new WeakMap<ProxyRequest, ProxyAnswer>();
      const keyOf = (r: ProxyRequest) => {
        const k = headerOf(r.headers, 'idempotency-key');
        return k === undefined ? undefined : `${headerOf(r.headers, 'authorization') ?? ''} ${k}`;
      };
      return {
        buffer: notAStream,
        request(r) {
          const key = isOperation(r, 'addAddress') ? keyOf(r) : undefined;
          const hit = key !== undefined ? stored.get(key) : undefined;
          if (!hit) return r;
          replays.set(r, hit);
          // The repeat goes nowhere that changes anything.
          return { ...r, method: 'GET', path: '/health' };
        },
        response(a, r) {
          const replay = replays.get(r);
          if (replay) return { ...replay, headers: withHeader(replay.headers, 'X-Request-Id', headerOf(a.headers, 'x-request-id') ?? '') };
          const key = isOperation(r, 'addAddress') ? keyOf(r) : undefined;
          if (key !== undefined && a.status === 201) stored.set(key, a);
          return a;
        },
      };
    },
  ),
  // "There is no ... CORS support (no browser calls the service cross-origin)." Broken on catalog reads only: a request
  // with an Origin is answered with Access-Control-Allow-Origin.
  wire('blind.purpose.cors-on-catalog', 'PUR-PROTO-3', 'catalog GETs with an Origin answer Access-Control-Allow-Origin', (a, r) => {
    const origin = headerOf(r.headers, 'origin');
    if (!origin || !/^\/v1\/catalog\//.test(r.path)) return a;
    return { ...a, headers: [...a.headers, ['Access-Control-Allow-Origin', origin], ['Vary', 'Origin']] };
  }),
  // Rule 3: "address update and default" are storefront capabilities, not service endpoints. Broken: PUT on an address
  // answers 200 with the address (the update is accepted, though nothing changes).
  statefulWire('blind.purpose.address-update-served', 'PUR-STOREFRONT-8', 'PUT /v1/me/addresses/{id} answers 200 with the address', () => {
    const updates = new WeakMap<ProxyRequest, string>();
    return {
      buffer: notAStream,
      request(r) {
        const m = /^\/v1\/me\/addresses\/([^/]+)$/.exec(pathOf(r));
        if (r.method !== 'PUT' || !m) return r;
        updates.set(r, decodeURIComponent(m[1]!));
        return { ...r, method: 'GET', path: '/v1/me/addresses' };
      },
      response(a, r) {
        const id = updates.get(r);
        if (id === undefined || a.status !== 200 || a.body === undefined) return a;
        let found: unknown;
        const visit = (v: unknown): void => {
          if (found !== undefined || v === null || typeof v !== 'object') return;
          if (!Array.isArray(v) && (v as { id?: unknown }).id === id) found = v;
          else for (const x of Object.values(v)) visit(x);
        };
        try {
          visit(JSON.parse(a.body));
        } catch {
          return a;
        }
        return found === undefined ? { ...a, status: 404 } : { ...a, body: JSON.stringify(found) };
      },
    };
  }),
  // Rule 4: human-only operations "are excluded from agent discovery". Broken: the general description document lists a
  // security-methods read that requires account:security.
  wire(
    'blind.purpose.security-methods-in-description',
    'PUR-HUMAN-4',
    '/openapi.json lists an operation requiring account:security',
    (a, r) =>
      pathOf(r) === '/openapi.json' && a.status === 200
        ? editJson(a, (doc) => {
            const paths = (doc.paths ?? {}) as Record<string, unknown>;
            paths['/v1/me/security-methods'] = {
              get: {
                operationId: 'listSecurityMethods',
                summary: "The account's security methods.",
                security: [{ bearer: ['account:security'] }],
                'x-api-scopes': ['account:security'],
                'x-agent-scopes': [],
                responses: { '200': { description: 'The security methods.' } },
              },
            };
            doc.paths = paths;
          })
        : a,
  ),
];
