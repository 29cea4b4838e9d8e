// The rules of the spec's Endpoints part judged on more than one exchange: which caller kinds an operation admits (its
// caller list, enforced by a guard on its one URL), and that a route with a credential of its own (an internal route's
// shared secret, the webhook's provider signature) serves nobody without it. The caller-guard checks and `explore` call
// them; neither re-implements them.
import { CALLER_LISTS, type CallerKind, type CallerListName } from '../../contract/callers.js';
import { OPERATIONS_BY_ID } from '../../contract/operations.js';
import type { Rule } from './rule.js';

/** The list clause of each caller list (spec, Endpoints > Caller lists by name). */
export const LIST_CLAUSE: Readonly<Record<CallerListName, string>> = {
  storefront: 'END-LIST-1',
  account: 'END-LIST-2',
  checkout: 'END-LIST-3',
  agentCheckout: 'END-LIST-4',
  operator: 'END-LIST-5',
  diagnostic: 'END-LIST-6',
  conversation: 'END-PUBLIC-19',
};

/** An answer as the guard rule reads it: its status and problem `error`. */
export interface Guarded {
  status: number;
  error?: unknown;
}

/** A request as the guard rule reads it: the operation, the caller kind its sound credential presents. */
export interface GuardRequest {
  operationId: string;
  kind: CallerKind;
  /**
   * Whether the token carries every API scope the operation needs, as far as anyone can know them (the spec's row, the
   * target's documents): false or unknown lets a 403 insufficient_scope stand, the guard's stages having no order.
   */
  scopesCovered: boolean;
}

/** Refused by the guard: 401, or 403 caller_not_allowed / insufficient_scope. A 403 of another code is a later stage's. */
export const guardRefused = (res: Guarded): boolean =>
  res.status === 401 || (res.status === 403 && (res.error === 'caller_not_allowed' || res.error === 'insufficient_scope'));

/**
 * Whether the spec shows which kinds an operation admits: a list whose members it names, on a row whose Callers cell it
 * fills. The diagnostic and conversation lists, and the preview (no list at all), are the deployment's choice.
 */
export function shownCallers(operationId: string): readonly CallerKind[] | undefined {
  const op = OPERATIONS_BY_ID.get(operationId);
  if (!op || op.notShown?.includes('callers') || !CALLER_LISTS[op.callers].shownInSpec) return undefined;
  return CALLER_LISTS[op.callers].members;
}

/**
 * PUR-RULE-2 and the caller lists (END-LIST-*), with the error table's row for a wrong caller kind (ERR-TABLE-8): a kind
 * of the operation's list passes the guard (not 401, not 403 caller_not_allowed, nor insufficient_scope for a token that
 * carries the operation's scopes); any other kind gets 403 caller_not_allowed (or insufficient_scope where its token
 * lacks a scope: one stage). Applies to the operations whose list the spec shows, to a sound credential of a kind.
 */
export const CALLER_GUARD: Rule<Guarded & { request: GuardRequest }, GuardRequest> = {
  name: "the guard admits exactly the operation's caller list",
  clause: ['PUR-RULE-2', 'ERR-TABLE-8'],
  section: 'Endpoints > Caller lists by name',
  scope: {
    route: 'the operations whose caller list the spec shows',
    caller: 'every kind',
    status: '401, 403 caller_not_allowed, 403 insufficient_scope',
    request: 'a sound credential of the kind',
  },
  applies: (r) => shownCallers(r.operationId) !== undefined,
  judge: (a) => {
    const members = shownCallers(a.request.operationId);
    if (!members) return undefined;
    const op = OPERATIONS_BY_ID.get(a.request.operationId)!;
    const list = LIST_CLAUSE[op.callers];
    const what = `${a.request.kind} on ${a.request.operationId} (the ${op.callers} list)`;
    const actual = `${a.status} ${typeof a.error === 'string' ? a.error : ''}`.trim();
    if (members.includes(a.request.kind)) {
      const scopeRefusal = a.status === 403 && a.error === 'insufficient_scope' && !a.request.scopesCovered;
      return guardRefused(a) && !scopeRefusal
        ? { what: `${what} must pass the guard`, expected: 'not 401, not 403 caller_not_allowed', actual, clause: [list, 'PUR-RULE-2'] }
        : undefined;
    }
    const refused =
      a.status === 403 && (a.error === 'caller_not_allowed' || (a.error === 'insufficient_scope' && !a.request.scopesCovered));
    return refused
      ? undefined
      : {
          what: `${what} must be refused by the guard`,
          expected: '403 caller_not_allowed',
          actual,
          clause: [a.request.kind === 'operator' ? 'END-LIST-5' : list, 'PUR-RULE-2', 'ERR-TABLE-8'],
        };
  },
};

/** The clause of each route that has a credential of its own: refused without it (spec, Public and special routes). */
export const OWN_CREDENTIAL_CLAUSE: Readonly<Record<string, readonly string[]>> = {
  recordSecurityIntent: ['END-PUBLIC-9'],
  registerSignedOutAssistantSession: ['END-PUBLIC-11'],
  recordConnectedAgent: ['END-PUBLIC-12'],
  recordAgentAuthorization: ['END-PUBLIC-13'],
  recordConversationTurn: ['END-PUBLIC-14'],
  recordConversationHandoffTimeout: ['END-PUBLIC-15'],
  recoverAccount: ['END-PUBLIC-16', 'END-PUBLIC-18'],
  receivePaymentWebhook: ['END-PUBLIC-7', 'EVT-WEBHOOK-4'],
};

/** A request to a route with a credential of its own, as the rule reads it: whether it presented that credential. */
export interface OwnCredentialRequest {
  operationId: string;
  /** The route's own secret (or a provider signature made with the webhook secret) was presented. */
  presented: boolean;
}

/**
 * The internal routes and the webhook serve nobody without their own credential: a request with none, a wrong one,
 * another secret of the profile or an access token gets no success (the status of the refusal is each route's own and
 * judged by the routes' checks).
 */
export const OWN_CREDENTIAL_REQUIRED: Rule<Guarded & { request: OwnCredentialRequest }, OwnCredentialRequest> = {
  name: 'a route with a credential of its own serves nobody without it',
  clause: ['END-PUBLIC-9', 'END-PUBLIC-11', 'END-PUBLIC-16', 'END-PUBLIC-7'],
  section: 'Endpoints > Public and special routes',
  scope: { route: 'the internal routes and the webhook', caller: 'every', status: '2xx', request: 'without the route’s own credential' },
  applies: (r) => r.operationId in OWN_CREDENTIAL_CLAUSE && !r.presented,
  judge: (a) =>
    a.status >= 200 && a.status < 300
      ? {
          what: `${a.request.operationId} without its own credential`,
          expected: 'a refusal',
          actual: a.status,
          clause: [...(OWN_CREDENTIAL_CLAUSE[a.request.operationId] ?? [])],
        }
      : undefined,
};

/** A GET as the conditional rule reads it: the entity tags its If-None-Match sent. */
export interface ConditionalRequest {
  method: string;
  ifNoneMatch: string | undefined;
}

/** The opaque part of an entity tag, weak or strong (RFC 9110 8.8.3.2: If-None-Match compares weakly). */
const opaqueTag = (tag: string) => tag.trim().replace(/^W\//, '');

/**
 * END-CONV-8: "a GET whose ETag matches If-None-Match answers 304" (with no body). Judged where the answer shows the
 * match itself: a 200 whose ETag is one of the tags sent (weak comparison) should have been a 304; a 304 has no body.
 */
export const CONDITIONAL_GET: Rule<Guarded & { etag: string | undefined; text: string; request: ConditionalRequest }, ConditionalRequest> =
  {
    name: 'a GET whose ETag matches If-None-Match answers 304 with no body',
    clause: 'END-CONV-8',
    section: 'Endpoints > Conventions',
    scope: { route: 'every GET', caller: 'every', status: '200, 304', request: 'a GET with If-None-Match' },
    applies: (r) => r.method === 'GET' && r.ifNoneMatch !== undefined,
    judge: (a) => {
      if (a.status === 304)
        return a.text === '' ? undefined : { what: 'the body of a 304', expected: 'empty', actual: a.text.slice(0, 200) };
      const sent = (a.request.ifNoneMatch ?? '').split(',').map(opaqueTag);
      const matched = a.etag !== undefined && (sent.includes('*') || sent.includes(opaqueTag(a.etag)));
      return a.status === 200 && matched
        ? { what: `a GET with If-None-Match: ${a.request.ifNoneMatch} answered with that very ETag`, expected: 304, actual: a.status }
        : undefined;
    },
  };
