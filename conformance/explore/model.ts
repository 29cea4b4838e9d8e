// Oracle (a): a model of what the spec pins about a sequence. A cart is a set of lines per owner (a guest session or an
// account, which its customer and delegated callers share: AUTH-KIND-3, AUTH-KIND-6); checkout turns a non-empty cart
// into exactly one new order, visible in listOrders, and empties the cart, so that a resubmission is 422 cart_empty
// (PUR-IDEM-3, PUR-IDEM-4, ERR-TABLE-14); Idempotency-Key changes nothing (PUR-IDEM-2: the model ignores it); every
// Location answers a GET (END-CONV-2); rows under /v1/me/* never cross accounts (END-ME-1, END-ME-2); every answer
// carries the headers the spec requires for its status (lib/expect/every-response.ts). Quantities, record shapes and ids
// are not shown by the spec: a cart is observed through the variant ids its text names. Where a step's effect is not
// pinned (a mutated write the target accepted, a checkout refused for its own reasons), the owner's cart becomes unknown
// until the next read.
import { CheckFailure, softFailures } from '../lib/assert.js';
import {
  cacheable,
  expectBoundaryRules,
  expectDomainErrorHeaders,
  expectProblemMembers,
  expectRequestId,
} from '../lib/expect/every-response.js';
import type { Answer, Finding, Step } from './exchange.js';
import { ownerOf, sessionOf, type PlanStep } from './plan.js';
import { credentialsOfStep } from './agent-callers.js';
import { mayHaveMore } from './model-knows.js';

export { expectedOutcome, mayHaveMore } from './model-knows.js';

export type Account = 'a' | 'b';

export interface ModelState {
  /** Per owner: the variants its cart holds, or undefined while unknown. */
  carts: Map<string, Set<number> | undefined>;
  /** Orders each account placed in this sequence, ids as their Location named them. */
  orders: Record<Account, string[]>;
  /** Every row a create answered with in this sequence (its Location, else its id). */
  created: Set<string>;
  /** Addresses each account added in this sequence and has not deleted (model-accounts.ts). */
  addresses: Record<Account, string[]>;
  /** Conversations each assistant session opened in this sequence: a session's own, never another's (END-PUBLIC-19). */
  conversations: Record<Account, string[]>;
}

export const newModel = (): ModelState => ({
  carts: new Map(),
  orders: { a: [], b: [] },
  created: new Set(),
  addresses: { a: [], b: [] },
  conversations: { a: [], b: [] },
});

const is2xx = (s: number) => s >= 200 && s < 300;
/** The account a caller acts for (customer, delegated, invited agent, assistant, or a defective credential of one). */
const accountOf = (caller: string): Account | undefined => /^account:([ab])$/.exec(ownerOf(caller) ?? '')?.[1] as Account | undefined;
/** Refusals that stop a request before its handler: the state is what it was. */
const BEFORE_HANDLER = new Set([400, 401, 403, 404, 405, 413, 415, 429]);

function finding(index: number, clauses: string[], message: string, expected?: unknown, actual?: unknown): Finding {
  return {
    oracle: 'model',
    clauses,
    message,
    index,
    ...(expected !== undefined ? { expected } : {}),
    ...(actual !== undefined ? { actual } : {}),
  };
}

/** The rules of every response on one answer, as findings (the suite's own assertions, their clause IDs kept). */
export function judgeHeaders(step: Step, answer: Answer, index: number, docsUrl: string): Finding[] {
  const ledger: CheckFailure[] = [];
  softFailures.ledger = ledger;
  const res = { status: answer.status, headers: new Headers(answer.headers), text: answer.text, body: answer.json as any };
  const what = `${step.method} ${step.path}`;
  try {
    expectRequestId(res, what);
    expectBoundaryRules(res, what, cacheable(step.method, step.path.split('?')[0]!));
    expectProblemMembers(docsUrl, res, what);
    // ERR-PROBLEM-8 (rules/07-errors.ts): the request as sent, its path and the credentials its caller presents.
    expectDomainErrorHeaders(res, what, { path: step.path.split('?')[0]!, credentials: credentialsOfStep(step) });
  } catch (err) {
    if (err instanceof CheckFailure) ledger.push(err);
    else throw err;
  } finally {
    softFailures.ledger = undefined;
  }
  return ledger.map((f) => finding(index, [...f.clauses], f.message, f.expected, f.actual));
}

/** The ids a location names last (an order's, an address's). */
export const idOfLocation = (location: string) => new URL(location, 'http://base.invalid').pathname.split('/').filter(Boolean).pop() ?? '';

/**
 * The id of the row a create made: the last segment of its Location, else (no GET URL, so no Location: END-CONV-2) an
 * `id` member of its body when it has one. Record shapes are not shown: a deployment that names it otherwise gives none.
 */
export function createdId(answer: Answer, requestPath?: string): string | undefined {
  if (answer.status < 200 || answer.status > 299) return undefined;
  // A Location naming the collection the create was sent to names no row of its own: the body's id, if any.
  const collection = requestPath?.split('?')[0]!.split('/').pop();
  if (answer.headers.location && idOfLocation(answer.headers.location) !== collection) return idOfLocation(answer.headers.location);
  const id = (answer.json as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

export interface Judged {
  findings: Finding[];
}

/**
 * Judges one answer against the model and moves the model on. `variants` are the two variant ids a cart step names;
 * `follow` is the GET of the answer's Location, when it had one.
 */
export function judgeStep(
  m: ModelState,
  p: PlanStep,
  step: Step,
  answer: Answer,
  o: { index: number; variants: readonly [string, string]; follow?: Answer | undefined },
): Finding[] {
  const out: Finding[] = [];
  const { index } = o;
  const owner = ownerOf(p.caller);
  const cart = owner === undefined ? undefined : m.carts.get(owner);
  const mutated = p.mutation !== undefined;
  const ok = is2xx(answer.status);
  const location = answer.headers.location;
  const code = (answer.json as { error?: unknown } | undefined)?.error;

  if (ok && location && o.follow && !is2xx(o.follow.status))
    out.push(
      finding(
        index,
        ['END-CONV-2'],
        `the Location of ${step.method} ${step.path} (${location}) does not answer a GET`,
        '2xx',
        o.follow.status,
      ),
    );

  switch (p.op) {
    case 'getCart': {
      if (!ok) break;
      const named = new Set(o.variants.flatMap((v, i) => (answer.text.includes(v) ? [i] : [])));
      if (p.caller === 'guest:no-session' && named.size > 0)
        out.push(
          finding(
            index,
            ['AUTH-GUEST-3'],
            'a guest cart read without a Guest-Session names lines',
            'an empty cart',
            answer.text.slice(0, 300),
          ),
        );
      if (owner === undefined || mutated) break;
      if (cart !== undefined && !sameSet(cart, named)) {
        const clauses = owner.startsWith('guest:') ? ['AUTH-KIND-9', 'AUTH-GUEST-17'] : ['AUTH-KIND-3', 'AUTH-KIND-6'];
        out.push(
          finding(
            index,
            clauses,
            `the cart of ${owner} does not hold the lines this sequence left in it`,
            [...cart].map((i) => o.variants[i]),
            [...named].map((i) => o.variants[i]),
          ),
        );
      }
      m.carts.set(owner, named);
      break;
    }
    case 'addCartItem':
    case 'updateCartItem':
    case 'removeCartItem': {
      if (owner === undefined) break;
      if (!ok) {
        if (!BEFORE_HANDLER.has(answer.status)) m.carts.set(owner, undefined);
        break;
      }
      if (mutated || cart === undefined) {
        m.carts.set(owner, undefined);
        break;
      }
      const next = new Set(cart);
      if (p.op === 'addCartItem') next.add(p.variant);
      else if (p.op === 'removeCartItem') next.delete(p.variant);
      else if (!cart.has(p.variant)) {
        m.carts.set(owner, undefined); // an update of a line the cart lacks: what a 2xx means is not pinned
        break;
      }
      m.carts.set(owner, next);
      break;
    }
    case 'checkoutSavedCard': {
      const account = accountOf(p.caller);
      if (owner === undefined || account === undefined) break;
      if (code === 'cart_empty' && answer.status !== 422)
        out.push(finding(index, ['ERR-TABLE-14'], `cart_empty answered ${answer.status}`, 422, answer.status));
      // A checkout caller with the body its documents describe and an empty cart has nothing else to be refused for.
      if (!ok && !mutated && p.caller.startsWith('delegated:') && cart !== undefined && cart.size === 0 && code !== 'cart_empty')
        out.push(
          finding(
            index,
            ['ERR-TABLE-14'],
            'a checkout of an empty cart was not refused as cart_empty',
            '422 cart_empty',
            `${answer.status} ${String(code)}`,
          ),
        );
      if (ok && !mutated && cart !== undefined && cart.size === 0)
        out.push(
          finding(index, ['PUR-IDEM-4', 'ERR-TABLE-14'], 'a checkout of an empty cart was accepted', '422 cart_empty', answer.status),
        );
      if (answer.status === 422 && code === 'cart_empty' && cart !== undefined && cart.size > 0)
        out.push(
          finding(
            index,
            ['PUR-IDEM-3', 'AUTH-KIND-6'],
            'a checkout of a cart with lines was refused as cart_empty',
            'an order',
            'cart_empty',
          ),
        );
      if (ok) {
        const id = createdId(answer, step.path);
        if (id !== undefined) {
          if (m.orders.a.includes(id) || m.orders.b.includes(id))
            out.push(
              finding(
                index,
                ['PUR-IDEM-2', 'PUR-IDEM-3'],
                `a checkout answered with the order of an earlier checkout (${id})`,
                'a new order',
                id,
              ),
            );
          m.orders[account].push(id);
        }
        m.carts.set(owner, mutated ? undefined : new Set());
      } else if (!BEFORE_HANDLER.has(answer.status) && !(answer.status === 422 && code === 'cart_empty')) m.carts.set(owner, undefined);
      break;
    }
    case 'listOrders': {
      const account = accountOf(p.caller);
      if (!ok || account === undefined) break;
      const other: Account = account === 'a' ? 'b' : 'a';
      // Orders placed before may push this sequence's off a page (pagination and order are not shown): only an answer
      // that shows the whole list is judged for presence.
      for (const id of mayHaveMore(answer) ? [] : m.orders[account])
        if (!answer.text.includes(id))
          out.push(
            finding(
              index,
              ['END-OPS-LISTORDERS-1', 'PUR-IDEM-3'],
              `an order placed in this sequence (${id}) is missing from listOrders`,
              id,
              'absent',
            ),
          );
      for (const id of m.orders[other])
        if (answer.text.includes(id))
          out.push(finding(index, ['END-ME-1'], `listOrders shows another account's order (${id})`, 'absent', id));
      break;
    }
    case 'getOrder':
    case 'cancelOrder':
    case 'deleteAddress': {
      if (ok && p.mutation === 'foreign-id' && accountOf(p.caller) !== undefined && !/_none$/.test(step.path))
        out.push(finding(index, ['END-ME-2'], `${p.op} of another account's row succeeded (${step.path})`, 'a refusal', answer.status));
      break;
    }
    case 'addAddress': {
      // An earlier address answered for another body is a replay; for the same body it may be the address book keeping no
      // duplicates, which the spec does not forbid (only orders are pinned: "retrying an order-placing call places another").
      const id = createdId(answer, step.path);
      const body = `address ${id} ${JSON.stringify(step.body ?? null)}`;
      if (id !== undefined && m.created.has(`address ${id}`) && !m.created.has(body))
        out.push(finding(index, ['PUR-IDEM-2'], `addAddress answered with the address of an earlier create (${id})`, 'a new address', id));
      if (id !== undefined) m.created.add(`address ${id}`).add(body);
      break;
    }
    case 'openConversation': {
      const session = sessionOf(p.caller);
      const id = createdId(answer, step.path);
      if (session !== undefined && id !== undefined && p.caller.startsWith('assistant:')) m.conversations[session].push(id);
      break;
    }
    case 'listConversations': {
      const session = sessionOf(p.caller);
      if (!ok || session === undefined) break;
      for (const id of m.conversations[session === 'a' ? 'b' : 'a'])
        if (answer.text.includes(id))
          out.push(
            finding(index, ['END-PUBLIC-19'], `listConversations shows another assistant session's conversation (${id})`, 'absent', id),
          );
      break;
    }
    default:
      break;
  }
  return out;
}

function sameSet(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}
