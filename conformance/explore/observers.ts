// Reads after writes by another caller of the same account (docs/explore.md, "Sequences across callers"): after a write
// of an account's shared data that succeeded (an address added or deleted, an order placed or cancelled, a cart line
// changed), the list it changed is read at once by another caller kind of that account (the customer, its delegated
// agent, an invited agent, its assistant, in turn), and the model judges that read like any other step. The reads are
// derived from the plan, never part of it: a replay and a shrunk sequence make them again. Pure.
import { callersFor, isSound, ownerOf, type Caller, type PlanStep } from './plan.js';
import type { Profile } from '../../contract/profile.js';

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
