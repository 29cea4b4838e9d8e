// A defect: one subtle break of one clause, applied by the self-test's proxy in front of a target. Data first (id, clause,
// description, kind); `rules` is what the proxy does. Wire defects rewrite answers; leniency defects emulate a server that
// accepts what it must refuse, by repairing the request before it goes upstream (the suite holds the profile's keys).
// Configuration defects break a clause about what an operator configures (the wire never shows it): the deployment is
// configured against the clause and its profile says so.
import type { Profile } from '../../../contract/profile.js';
import type { Minter } from '../../lib/mint.js';
import { headerOf, type Fields, type ProxyAnswer, type ProxyRequest, type ProxyRules } from '../proxy.js';

export interface DefectContext {
  readonly profile: Profile;
  readonly mint: Minter;
  /** A request straight to the target behind the proxy, for a stateful defect that prepares what it then shows. */
  readonly send?: (req: { method: string; path: string; headers: Record<string, string>; body?: string }) => Promise<{
    status: number;
    body: string;
  }>;
  /** The target behind the proxy (its base path places the contract's route templates). */
  readonly target?: string;
}

export interface Defect {
  /** Stable id, `<part>.<what breaks>`. */
  readonly id: string;
  /** The clause of conformance/clauses/catalogue.ts it breaks: the checks citing it must fail. */
  readonly clause: string;
  readonly description: string;
  readonly kind: 'wire' | 'leniency' | 'configuration';
  /** What the proxy does. */
  readonly rules: (ctx: DefectContext) => ProxyRules;
  /**
   * Configuration defects: the profile of a deployment configured against the clause. The self-test starts the embedded
   * reference from it (or, against a deployment of one's own, hands it to the clause's checks with that deployment).
   */
  readonly configure?: (p: Profile) => Profile;
  /**
   * Set when the break is judged at the reference level only: at the spec level it looks like a conforming deployment's
   * choice (the reason says which), so `self-test --level spec` sets the defect aside.
   */
  readonly referenceOnly?: string;
  /** A narrowed variant (selftest/scoped.ts): the broad defect's id and the one cell its break applies to. */
  readonly scope?: { readonly of: string; readonly cell: string };
}

export const misconfigured = (id: string, clause: string, description: string, configure: (p: Profile) => Profile): Defect => ({
  id,
  clause,
  description,
  kind: 'configuration',
  rules: () => ({}),
  configure,
});

/** The defect, judged at the reference level only, for the reason given (see Defect.referenceOnly). */
export const referenceOnly = (d: Defect, why: string): Defect => ({ ...d, referenceOnly: why });

/** Buffers every answer but an event stream (so that JSON and problem bodies can be edited). */
export const notAStream = (answer: ProxyAnswer): boolean => !/^text\/event-stream/i.test(headerOf(answer.headers, 'content-type') ?? '');

export const wire = (
  id: string,
  clause: string,
  description: string,
  response: (a: ProxyAnswer, r: ProxyRequest) => ProxyAnswer,
): Defect => ({
  id,
  clause,
  description,
  kind: 'wire',
  rules: () => ({ buffer: notAStream, response }),
});

/** A wire defect whose rewrite needs the profile (problem types under its docsUrl, its client ids). */
export const wireWith = (
  id: string,
  clause: string,
  description: string,
  response: (ctx: DefectContext) => (a: ProxyAnswer, r: ProxyRequest) => ProxyAnswer,
): Defect => ({
  id,
  clause,
  description,
  kind: 'wire',
  rules: (ctx) => ({ buffer: notAStream, response: response(ctx) }),
});

export const lenient = (id: string, clause: string, description: string, rules: (ctx: DefectContext) => ProxyRules): Defect => ({
  id,
  clause,
  description,
  kind: 'leniency',
  rules,
});

/** The answer's JSON body edited by `edit` (which mutates it); answers without a JSON object body are left alone. */
export function editJson(a: ProxyAnswer, edit: (body: Record<string, unknown>) => void): ProxyAnswer {
  if (a.body === undefined || !/json/i.test(headerOf(a.headers, 'content-type') ?? '')) return a;
  let body: unknown;
  try {
    body = JSON.parse(a.body);
  } catch {
    return a;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return a;
  edit(body as Record<string, unknown>);
  return { ...a, body: JSON.stringify(body) };
}

/** The `error` member of a problem answer, if it is one. */
export function problemCode(a: ProxyAnswer): string | undefined {
  if (a.status < 400 || a.body === undefined) return undefined;
  try {
    const code = (JSON.parse(a.body) as { error?: unknown }).error;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

export const pathOf = (r: ProxyRequest): string => r.path.split('?')[0]!;
export const withoutField = (fields: Fields, name: string): Fields => fields.filter(([k]) => k.toLowerCase() !== name.toLowerCase());
export const setField = (fields: Fields, name: string, value: string): Fields => [...withoutField(fields, name), [name, value]];

/** The claims of the request's bearer (or DPoP) access token, unverified; undefined when it carries none. */
export function tokenClaims(r: ProxyRequest): Record<string, unknown> | undefined {
  const m = /^(?:Bearer|DPoP)\s+([\w-]+)\.([\w-]+)\.[\w-]*$/i.exec(headerOf(r.headers, 'authorization') ?? '');
  return m ? jsonSegment(m[2]!) : undefined;
}

/** A base64url JSON segment of a JWS, parsed; undefined when it is not one. */
export function jsonSegment(segment: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A problem document answer of `status` and `error` (its `type` under the profile's `docsUrl`), keeping the upstream
 * answer's X-Request-Id as its `instance`.
 */
export function problemAnswer(
  ctx: DefectContext,
  a: ProxyAnswer,
  status: number,
  error: string,
  title: string,
  extra: Fields = [],
): ProxyAnswer {
  const requestId = headerOf(a.headers, 'x-request-id');
  return {
    status,
    headers: [
      ['Content-Type', 'application/problem+json'],
      ['Cache-Control', 'no-store'],
      ...a.headers.filter(([k]) => /^(x-request-id|dpop-nonce|traceparent)$/i.test(k)),
      ...extra,
    ],
    body: JSON.stringify({
      type: `${ctx.profile.docsUrl.replace(/\/+$/, '')}/api/problems/${error}`,
      title,
      status,
      error,
      ...(requestId ? { instance: requestId } : {}),
    }),
  };
}

/**
 * The JSON request bodies of a defect's requests, kept for its `response` rule: the proxy hands `requestBody` and
 * `response` the same request object when no `request` rule replaces it. `requestBody` passes the body on unchanged.
 */
export function keptBodies(): {
  requestBody(req: ProxyRequest, body: string): string;
  of(req: ProxyRequest): Record<string, unknown> | undefined;
} {
  const bodies = new WeakMap<ProxyRequest, Record<string, unknown>>();
  return {
    requestBody(req, body) {
      try {
        const v = JSON.parse(body) as unknown;
        if (v && typeof v === 'object' && !Array.isArray(v)) bodies.set(req, v as Record<string, unknown>);
      } catch {
        // Not JSON: nothing kept.
      }
      return body;
    },
    of: (req) => bodies.get(req),
  };
}
