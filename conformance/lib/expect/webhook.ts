// The payment-provider webhook's answers (spec, Events > Webhook): an accepted delivery and the problems of the Events
// table.
import { fail, expectStatus, expectNoStore, expectProblem } from '../assert.js';
import type { Answer } from './response.js';

/** Where the deployment's problem types live. */
type Docs = { readonly docsUrl: string };

/** 200 `{"received": true}` (exactly), with Cache-Control: no-store. */
export function expectReceived(res: Answer, { clause }: { clause: string }): void {
  expectStatus(res, 200, { what: 'status of an accepted delivery', clause });
  const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json')
    fail('Content-Type of the success body', 'application/json', res.headers.get('content-type'), { clause: 'RES-WEBHOOK-1' });
  const body = res.body as unknown;
  if (
    typeof body !== 'object' ||
    body === null ||
    Array.isArray(body) ||
    Object.keys(body).length !== 1 ||
    (body as { received?: unknown }).received !== true
  ) {
    fail('success body', { received: true }, res.text.slice(0, 300), { clause: 'RES-WEBHOOK-1' });
  }
  expectNoStore(res, { clause: 'END-CONV-9' });
}

/** A problem document of the Events table, with Cache-Control: no-store. */
export function expectWebhookProblem(shop: Docs, res: Answer, status: number, error: string, { clause }: { clause: string }): void {
  expectProblem(res, { status, error, docsUrl: shop.docsUrl, clause });
  expectNoStore(res, { clause: 'ERR-PROBLEM-5' });
}
