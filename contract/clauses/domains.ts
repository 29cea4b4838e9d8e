// The domain of a clause: which dimensions of an exchange it ranges over (operations, caller kinds, statuses, error codes,
// methods, route groups) and which cells of each. Data, derived from contract/: the self-test narrows a defect to one cell
// (conformance/selftest/scoped.ts) and the run records which cells the checks of a clause exercised (engine/report/cells.ts).
// A clause without a declared domain gets no narrowed variants and no domain coverage.
import { CALLER_KINDS, CALLER_LISTS, type CallerKind } from '../callers.js';
import { ERRORS, ERROR_CODES } from '../errors.js';
import { OPERATIONS, OPERATIONS_BY_ID, ROUTES, type Operation } from '../operations.js';

export const DIMENSIONS = ['operation', 'caller', 'status', 'error', 'method', 'group'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Route groups, by path (engine/report/cells.ts `groupOf`). `unmatched`: no route of the contract. */
export const ROUTE_GROUPS = ['operations', 'conversation', 'public', 'internal', 'webhook', 'unmatched'] as const;
export type RouteGroup = (typeof ROUTE_GROUPS)[number];

/** One cell: a dimension and one of its values (`caller=invited-agent`, `status=401`, `operation=getIdentity`). */
export interface Cell {
  readonly dimension: Dimension;
  readonly value: string;
}

export const cellName = (c: Cell): string => `${c.dimension}=${c.value}`;

export function parseCell(name: string): Cell | undefined {
  const m = /^(\w+)=(.+)$/.exec(name);
  return m && (DIMENSIONS as readonly string[]).includes(m[1]!) ? { dimension: m[1] as Dimension, value: m[2]! } : undefined;
}

/** Fixed coordinates an exchange must have to count for the domain (the operation a caller-kind clause is about, a DPoP request). */
export interface Where {
  readonly operation?: readonly string[];
  readonly dpop?: boolean;
  /** Only answers of these status classes (`2xx`, `4xx`…). */
  readonly statusClass?: readonly string[];
}

export interface DomainAxis {
  readonly dimension: Dimension;
  readonly cells: readonly string[];
  readonly where?: Where;
}

export interface ClauseDomain {
  readonly clause: string;
  /** Why the domain is what it is, in one line (shown by `self-test --list --scoped`). */
  readonly about: string;
  readonly axes: readonly DomainAxis[];
}

// ----------------------------------------------------------------------------------------------- cells from contract/

/** The spec's "Caller kinds" table: the kinds whose resulting actor is an agent. */
export const AGENT_KINDS: readonly CallerKind[] = ['delegated', 'invited-agent', 'assistant'];

const callersOf = (operationId: string): readonly CallerKind[] => CALLER_LISTS[OPERATIONS_BY_ID.get(operationId)!.callers].members;
const agentCallersOf = (operationId: string) => callersOf(operationId).filter((k) => AGENT_KINDS.includes(k));
const ids = (ops: readonly Operation[]) => ops.map((o) => o.operationId);
const kindsAdmittedBy = (kind: CallerKind) => ids(OPERATIONS.filter((o) => CALLER_LISTS[o.callers].members.includes(kind)));

/**
 * Creates (spec, Conventions): POST operations that make a resource. An action on a resource (its last segment a verb
 * noun: `cancellation`, `close`) and a computed answer (a preview, "computed, not stored") are not creates. Nor are the
 * operator writes: the spec shows neither their routes nor what they make, and the reference answers a refund and a stock
 * adjustment 200 with the order or the stock (docs/operator.md), as actions on the order and the variant.
 */
const ACTIONS = /\/(cancellation|close)$/;
export const CREATES = ids(
  OPERATIONS.filter((o) => o.method === 'POST' && o.group !== 'operator' && !ACTIONS.test(o.path) && !/preview/i.test(o.operationId)),
);
/** Creates whose resource has a GET URL: an operation GETs one member of the collection the create posts to. */
export const CREATES_WITH_URL = CREATES.filter((id) => {
  const path = OPERATIONS_BY_ID.get(id)!.path;
  return OPERATIONS.some((o) => o.method === 'GET' && o.path.startsWith(`${path}/{`));
});
export const DELETES = ids(OPERATIONS.filter((o) => o.method === 'DELETE'));
/** Every operation but the catalog GETs (their caching differs: Conventions). */
export const NON_CATALOG = ids(OPERATIONS.filter((o) => o.group !== 'catalog'));
/** Statuses of the error table, once each, but 500: the failures a client can provoke from a conforming server. */
export const ERROR_STATUSES = [...new Set(Object.values(ERRORS).map((e) => e.status))]
  .filter((s) => s !== 500)
  .sort((a, b) => a - b)
  .map(String);
/** Domain errors (ERR-PROBLEM-8): the codes of the table that carry no challenge of their own. */
export const DOMAIN_ERRORS = ERROR_CODES.filter((c) => !ERRORS[c].headers.includes('WWW-Authenticate') && ERRORS[c].status !== 500);
/** Success statuses of the conventions (200, a create's 201, a delete's 204, a matching If-None-Match's 304). */
export const SUCCESS_STATUSES = ['200', '201', '204', '304'];
/** Route groups that answer something of their own (every group but unmatched paths). */
export const SERVED_GROUPS = ROUTE_GROUPS.filter((g) => g !== 'unmatched');
/** Methods of the operations table and the special routes. */
export const METHODS = [...new Set(ROUTES.map((r) => r.method))];
const DPOP_ERRORS = ERROR_CODES.filter((c) => /dpop/.test(c));
/** Caller kinds with a rate budget (spec, Limits: guests, and assistants per session and per client). */
const BUDGETED_KINDS: readonly CallerKind[] = ['guest', 'assistant'];

const axis = (dimension: Dimension, cells: readonly string[], where?: Where): DomainAxis => ({
  dimension,
  cells,
  ...(where ? { where } : {}),
});
const banner = (clause: string): ClauseDomain => ({
  clause,
  about: 'the identity read, for each agent caller kind among its callers',
  axes: [axis('caller', agentCallersOf('getIdentity'), { operation: ['getIdentity'] })],
});

export const DOMAINS: readonly ClauseDomain[] = [
  banner('PUR-BANNER-1'),
  banner('PUR-BANNER-2'),
  { clause: 'END-CONV-1', about: 'every create', axes: [axis('operation', CREATES)] },
  { clause: 'END-CONV-2', about: 'every create whose resource has a GET URL', axes: [axis('operation', CREATES_WITH_URL)] },
  { clause: 'END-CONV-3', about: 'every delete', axes: [axis('operation', DELETES)] },
  {
    clause: 'END-CONV-9',
    about: 'every response but catalog GETs and the description documents: each non-catalog operation, each route group',
    axes: [axis('operation', NON_CATALOG), axis('group', SERVED_GROUPS)],
  },
  { clause: 'ERR-PROBLEM-1', about: 'every failure: each status of the error table', axes: [axis('status', ERROR_STATUSES)] },
  {
    clause: 'ERR-PROBLEM-4',
    about: 'every response of status 400 or above',
    axes: [axis('status', ERROR_STATUSES), axis('group', ROUTE_GROUPS, { statusClass: ['4xx', '5xx'] })],
  },
  {
    clause: 'ERR-PROBLEM-5',
    about: 'every response of status 400 or above',
    axes: [axis('status', ERROR_STATUSES), axis('group', ROUTE_GROUPS, { statusClass: ['4xx', '5xx'] })],
  },
  {
    clause: 'ERR-PROBLEM-7',
    about: 'every response, success or failure: each status, each route group',
    axes: [axis('status', [...SUCCESS_STATUSES, ...ERROR_STATUSES]), axis('group', ROUTE_GROUPS)],
  },
  { clause: 'ERR-PROBLEM-8', about: 'domain errors: each error code of the table', axes: [axis('error', DOMAIN_ERRORS)] },
  {
    clause: 'AUTH-ORDER-2',
    about: 'every response: each status, each route group',
    axes: [axis('status', [...SUCCESS_STATUSES, ...ERROR_STATUSES]), axis('group', ROUTE_GROUPS)],
  },
  {
    clause: 'AUTH-ORDER-4',
    about: 'every response to a DPoP request: each status, each method',
    // 431 is left out: headers over the limit are refused before they are read, so no server knows the request had a proof.
    axes: [
      axis('status', [...SUCCESS_STATUSES, ...ERROR_STATUSES.filter((st) => st !== '431')], { dpop: true }),
      axis('method', METHODS, { dpop: true }),
    ],
  },
  {
    clause: 'ERR-TABLE-4',
    about: 'each DPoP error code, each route group an assistant calls',
    axes: [axis('error', DPOP_ERRORS), axis('group', ['operations', 'conversation'], { dpop: true })],
  },
  { clause: 'LIM-RATE-1', about: 'each operation a guest may call', axes: [axis('operation', kindsAdmittedBy('guest'))] },
  {
    clause: 'LIM-RATE-2',
    about: 'each route group an assistant calls',
    axes: [axis('group', ['operations', 'conversation'], { dpop: true })],
  },
  {
    clause: 'LIM-RATE-3',
    about: 'each route group an assistant calls',
    axes: [axis('group', ['operations', 'conversation'], { dpop: true })],
  },
  { clause: 'LIM-RATE-4', about: 'each caller kind with a budget', axes: [axis('caller', BUDGETED_KINDS, { statusClass: ['4xx'] })] },
  { clause: 'AUTH-ORDER-8', about: 'each caller kind with a budget', axes: [axis('caller', BUDGETED_KINDS)] },
];

export const DOMAINS_BY_CLAUSE: ReadonlyMap<string, ClauseDomain> = new Map(DOMAINS.map((d) => [d.clause, d]));

/** Every value a dimension can take (for vector tables and validation of the data above). */
export const DIMENSION_VALUES: Readonly<Record<Dimension, readonly string[]>> = {
  operation: ids(OPERATIONS),
  caller: [...CALLER_KINDS],
  status: [...SUCCESS_STATUSES, ...ERROR_STATUSES],
  error: ERROR_CODES,
  method: METHODS,
  group: ROUTE_GROUPS,
};
