// The operator routes' answers (spec, Endpoints > Operator routes): a read admitted, a problem, a 200 not cached.
import { expectSuccess, expectStatus, expectNoStore, expectProblem, type ClauseRef } from '../assert.js';
import type { Answer } from './response.js';

/** Where the deployment's problem types live. */
type Docs = { readonly docsUrl: string };

/**
 * An operator read control admitted: a 2xx, or a 400 problem (a query parameter the target's search wants; the
 * suite sends none). Other answers fail `clause`.
 */
export function expectOperatorAdmitted(shop: Docs, res: Answer, { what, clause }: { what: string; clause: ClauseRef }): void {
  if (res.status === 400) {
    expectProblem(res, { status: 400, error: String(res.body?.error ?? ''), docsUrl: shop.docsUrl, clause });
    return;
  }
  expectSuccess(res, { what, clause });
}

/** A problem document with Cache-Control: no-store. */
export function expectOpsProblem(
  shop: Docs,
  res: Answer,
  status: number,
  error: string,
  { clause, extra = {} }: { clause: string; extra?: { scope?: string } },
): Record<string, unknown> {
  const doc = expectProblem(res, { status, error, docsUrl: shop.docsUrl, clause, ...extra });
  expectNoStore(res, { clause: 'ERR-PROBLEM-5' });
  return doc;
}

/** 200 with Cache-Control: no-store; the body. */
export function expectOpsOk(res: Answer, { clause }: { clause: string }): any {
  expectStatus(res, 200, { clause });
  expectNoStore(res, { clause: 'END-CONV-9' });
  return res.body;
}
