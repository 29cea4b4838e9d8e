// Reads after writes by another caller of the same account (docs/explore.md, "Sequences across callers"): after a write
// of an account's shared data that succeeded (an address added or deleted, an order placed or cancelled, a cart line
// changed), the list it changed is read at once by another caller kind of that account (the customer, its delegated
// agent, an invited agent, its assistant, in turn), and the model judges that read like any other step. The reads are
// derived from the plan, never part of it: a replay and a shrunk sequence make them again. So is the other account's
// address a step names, made first when the sequence has none (preludeOf). Pure.
import { callersFor, isSound, ownerOf, type Caller, type PlanStep } from './plan.js';
import type { Profile } from '../../contract/profile.js';
import { COMMANDS } from './commands.js';

/** The list each write changes. */
const OBSERVED_BY: Readonly<Record<string, string>> = {
  addAddress: 'listAddresses',
  deleteAddress: 'listAddresses',
  checkoutSavedCard: 'listOrders',
  cancelOrder: 'listOrders',
  addCartItem: 'getCart',
  updateCartItem: 'getCart',
  removeCartItem: 'getCart',
};

const KINDS = ['customer', 'delegated', 'invited', 'assistant'] as const;

/** The read that observes a write, as the next caller kind of the same account the profile lets `explore` send. */
export function observerOf(p: PlanStep, status: number, profile: Profile, turn: number): PlanStep | undefined {
  const read = OBSERVED_BY[p.op];
  const account = /^account:([ab])$/.exec(ownerOf(p.caller) ?? '')?.[1];
  if (!read || account === undefined || p.mutation !== undefined || !isSound(p.caller) || status < 200 || status > 299) return undefined;
  const available = new Set<string>(callersFor(profile));
  const others = KINDS.map((k) => `${k}:${account}`).filter((c) => c !== p.caller && available.has(c));
  if (others.length === 0) return undefined;
  return { op: read, caller: others[turn % others.length] as Caller, variant: p.variant, quantity: 1 };
}

/**
 * The row another account's id names, made first when the sequence has none (docs/explore.md, "Mutations"): a step that
 * names the other account's address (`foreign-id`) is preceded by an address added by that account's customer, so that
 * the id is a real row of another account and not an id nobody has. Derived like the observers: never part of the plan.
 */
export function preludeOf(p: PlanStep, addressesOf: (account: 'a' | 'b') => number, profile: Profile): PlanStep | undefined {
  if (p.mutation !== 'foreign-id' || !ADDRESS_ROUTES.has(p.op)) return undefined;
  const account = /^account:([ab])$/.exec(ownerOf(p.caller) ?? '')?.[1];
  if (account === undefined) return undefined;
  const other = account === 'a' ? 'b' : 'a';
  if (addressesOf(other) > 0 || !new Set<string>(callersFor(profile)).has(`customer:${other}`)) return undefined;
  return { op: 'addAddress', caller: `customer:${other}`, variant: 0, quantity: 1 };
}

/** The routes whose path id is an address. */
const ADDRESS_ROUTES: ReadonlySet<string> = new Set(COMMANDS.filter((c) => c.ref === 'address').map((c) => c.id));
