// An order placed (spec, Endpoints > Checkout): what the answer of an order-placing operation must be.
import { expectSuccess } from '../assert.js';
import type { Answer } from './response.js';

/** An order-placing answer: 2xx (201 at the reference level). */
export function expectPlaced(res: Answer, { what, clause }: { what: string; clause: string }): void {
  expectSuccess(res, { what: `${what}: an order is placed`, clause });
}
