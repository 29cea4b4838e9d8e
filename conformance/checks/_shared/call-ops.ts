// Requests to the operator operations under /v1/ops/* as the backoffice sends them: its machine token plus an Operator
// attribution header. The spec shows none of their routes: methods, paths and bodies are the target's own, learned from its
// description documents by the contract's operationIds (conformance/engine/transport/target.ts).
import { check, learned, type CheckSpec, type Shop } from '../../engine/runner/check.js';
import { operatorAttribution } from '../../lib/credential-formats.js';
import type { RequestOptions, ShopResponse } from '../../engine/transport/http.js';
import { notDeclared } from '../../lib/assert.js';
import { scopeWith } from '../../lib/mint.js';
import { freshHex } from '../../lib/fresh-id.js';

type Who = Pick<RequestOptions, 'token' | 'headers'>;

/** The target's route of an operator operation, with its path parameter filled in. */
export function route(operationId: string, id?: string): { method: string; path: string } {
  const t = learned();
  return { method: t.operation(operationId).method, path: id === undefined ? t.path(operationId) : t.path(operationId, id) };
}

/** One request to an operator operation the target describes. */
export interface DescribedOpsRequest {
  operationId: string;
  method: string;
  path: string;
  /** Whether the path names a record (a parameter filled with an id no record has). */
  names: boolean;
  json?: unknown;
}

/**
 * One request per operation the target's documents describe under /v1/ops/, whatever its id (spec, rule 1: "/v1/ops/* is
 * operator-only"; its operations are not shown): path parameters filled with ids no record has, a write with the
 * document's own example body. None when the documents describe none: the caller decides what that leaves unjudged.
 */
export function describedOpsRequests(): DescribedOpsRequest[] {
  return learned()
    .operatorOperations()
    .map((op) => {
      const path = op.path.replace(/\{[^}]+\}/g, () => `none_${freshHex()}`);
      const write = !['GET', 'HEAD', 'DELETE'].includes(op.method);
      return {
        operationId: op.operationId,
        method: op.method,
        path,
        names: op.pathParams.length > 0,
        ...(write ? { json: structuredClone(op.requestBody?.example ?? {}) } : {}),
      };
    });
}

/** Ends the check unjudged when the target describes no operation under /v1/ops/. */
export function requireDescribedOps(): DescribedOpsRequest[] {
  const requests = describedOpsRequests();
  if (requests.length === 0)
    notDeclared('any operation under /v1/ops/ in its description documents', 'the operator operations in /openapi.json');
  return requests;
}

/** A valid body of an operator write, as the target describes it, with the given roles set. */
export const opsBody = (operationId: string, roles: Parameters<ReturnType<typeof learned>['body']>[1] = {}): unknown =>
  learned().body(operationId, roles);

/**
 * The scopes of an operator token: the suite's default (the reference's `ops:read ops:write`) plus every scope the
 * target's documents declare in the security requirements of its operations under /v1/ops/ (the spec shows none).
 */
export const operatorScope = (): string =>
  scopeWith(
    'operator',
    learned()
      .operatorOperations()
      .flatMap((op) => learned().securityScopes(op.operationId) ?? []),
  );

/**
 * Operator credentials: a backoffice token (operatorScope, or `scope`) and, unless `header` is false, the Operator header.
 */
export const operator = async (shop: Shop, o: { scope?: string; header?: boolean } = {}): Promise<Who> => ({
  token: await shop.mint.operator({ scope: o.scope ?? operatorScope() }),
  headers: o.header === false ? {} : { operator: operatorAttribution(shop.profile) },
});

/**
 * A check of the reference's operator operations (the spec shows none of their rows: reference level), PUR-SERVE-5 by
 * default, on the seed's data, every response judged (so the reads' Cache-Control, END-CONV-9, among them): its body runs
 * with operator credentials (`who`).
 */
export const operatorCheck = (
  spec: Pick<CheckSpec, 'id' | 'title'> & Partial<Pick<CheckSpec, 'clauses'>>,
  body: (shop: Shop, who: Who) => Promise<void>,
) =>
  check({ everyResponse: true, clauses: ['PUR-SERVE-5'], level: 'reference', requires: ['operators'], seed: true, ...spec }, async (shop) =>
    body(shop, await operator(shop)),
  );

/**
 * Whether an operator control's answer is a 403 insufficient_scope for an operation whose documents declare no scopes:
 * the token carried the suite's default scopes, which need not be the target's, so the control says nothing.
 */
export const undeclaredScopeRefusal = (res: ShopResponse, operationId: string): boolean =>
  res.status === 403 && res.body?.error === 'insufficient_scope' && learned().securityScopes(operationId) === undefined;

/**
 * The operator controls that judge something, with their answers: those refused for a scope the target does not declare
 * are set aside with a note; none left ends the check unjudged.
 */
export function declaredControls<R extends { operationId: string; method: string; path: string }>(
  shop: Shop,
  reads: readonly R[],
  answers: readonly ShopResponse[],
): [R, ShopResponse][] {
  const kept: [R, ShopResponse][] = [];
  for (const [i, r] of reads.entries()) {
    if (!undeclaredScopeRefusal(answers[i]!, r.operationId)) kept.push([r, answers[i]!]);
    else
      shop.info.annotations.push({
        type: 'note',
        description: `operator control ${r.method} ${r.path} (${r.operationId}) not judged: 403 insufficient_scope, and the documents declare no scopes for it`,
      });
  }
  if (reads.length > 0 && kept.length === 0)
    notDeclared(
      "the API scopes an operator needs for the target's /v1/ops/ reads (each answered 403 insufficient_scope to the suite's default operator scopes)",
      "the scopes in each operation's OpenAPI security requirement in /openapi.json",
    );
  return kept;
}

/** Sends `r` as `who`. */
export const send = (shop: Shop, r: { method: string; path: string; json?: unknown }, who: Who) =>
  shop.http.request(r.method, r.path, { ...who, ...(r.json !== undefined ? { json: r.json } : {}) });
