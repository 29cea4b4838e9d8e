// What the model (model.ts) knows beyond its state: the outcome of a step the spec pins before it is sent (the differential
// compares a refusal the spec does not show only against it), and whether a list answer shows the whole list (the
// listOrders presence rule judges only such an answer: pagination and order are not shown). Pure.
import type { Answer } from './exchange.js';
import type { Account, ModelState } from './model.js';
import { ownerOf, type PlanStep } from './plan.js';

/** Reads a sound account caller's unmutated request always gets (its own data, the catalog). */
const READS = new Set(['getCart', 'listOrders', 'listAddresses', 'getProfile', 'listPaymentMethods', 'searchProducts']);
/** Of the explored operations, those a guest with its own cart may call (the storefront list). */
const GUEST_OPS = new Set(['getCart', 'searchProducts', 'removeCartItem', 'updateCartItem']);

/**
 * What the model knows of a step's outcome before it is sent, for the differential (projection.ts): 'success' where the
 * spec pins it for an unmutated step of a customer or delegated caller (a guest on its cart): its own reads, the update
 * or removal of a line the cart holds, the read of an order this sequence placed for the account. Undefined elsewhere (a
 * repeated cancel, a line the cart lacks, an address already deleted: the spec does not show those refusals).
 */
export function expectedOutcome(m: ModelState, p: PlanStep): 'success' | undefined {
  if (p.mutation !== undefined) return undefined;
  const account = /^(customer|delegated):([ab])$/.exec(p.caller)?.[2] as Account | undefined;
  if (account === undefined && !(/^guest:[ab]$/.test(p.caller) && GUEST_OPS.has(p.op))) return undefined;
  if (READS.has(p.op)) return 'success';
  if (p.op === 'removeCartItem' || p.op === 'updateCartItem')
    return m.carts.get(ownerOf(p.caller) ?? '')?.has(p.variant) ? 'success' : undefined;
  if (p.op === 'getOrder' && account !== undefined && m.orders[account].length > 0) return 'success';
  return undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Members that say a list is one page of more: a cursor or next link, a page, offset or limit, a total. */
const NEXT_MEMBER = /next|cursor|more/i;
const TOTAL_MEMBER = /^(total|count|total_?(count|items|results|size))$/i;
const PAGE_MEMBER = /^(page|pages|page_?(number|size|count|index|token)|total_?pages|per_?page|offset|limit|skip|start)$/i;

/**
 * Whether a list answer may be one page of more rows: a `Link` with rel="next", a member such as next_cursor, next or
 * has_more with a value, a total above the rows it holds, or (without a next member saying there is none) page, offset
 * or limit members; here or one object down (a `meta` or `pagination`). Only an answer that shows the whole list is
 * judged complete.
 */
export function mayHaveMore(answer: Pick<Answer, 'headers' | 'json'>): boolean {
  const link = answer.headers.link ?? '';
  if (/rel\s*=\s*"?[^";,]*\bnext\b/i.test(link)) return true;
  const json = answer.json;
  if (!isRecord(json)) return false;
  const rows = Math.max(0, ...Object.values(json).map((v) => (Array.isArray(v) ? v.length : 0)));
  const levels = [json, ...Object.values(json).filter(isRecord)];
  const members = levels.flatMap((o) => Object.entries(o));
  const set = (v: unknown) => v !== null && v !== false && v !== undefined && v !== '';
  if (members.some(([k, v]) => NEXT_MEMBER.test(k) && set(v))) return true;
  const totals = members.filter(([k, v]) => TOTAL_MEMBER.test(k) && typeof v === 'number');
  if (totals.length > 0) return totals.some(([, v]) => (v as number) > rows);
  // A next member without a value (next_cursor: null, has_more: false) says this is the last page.
  if (members.some(([k]) => NEXT_MEMBER.test(k))) return false;
  return members.some(([k, v]) => PAGE_MEMBER.test(k) && set(v));
}
