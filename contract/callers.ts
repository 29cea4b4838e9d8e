// Spec, Authentication > Caller kinds, and Endpoints > "Caller lists by name". Data only.

export const CALLER_KINDS = ['customer', 'delegated', 'guest', 'invited-agent', 'operator', 'assistant'] as const;
export type CallerKind = (typeof CALLER_KINDS)[number];

export const CALLER_LIST_NAMES = ['storefront', 'account', 'checkout', 'agentCheckout', 'operator', 'diagnostic', 'conversation'] as const;
export type CallerListName = (typeof CALLER_LIST_NAMES)[number];

export interface CallerList {
  readonly name: CallerListName;
  readonly members: readonly CallerKind[];
  /** false where the spec does not show the members and the reference chose them. */
  readonly shownInSpec: boolean;
  readonly note?: string;
}

export const CALLER_LISTS: Readonly<Record<CallerListName, CallerList>> = {
  storefront: { name: 'storefront', members: ['customer', 'delegated', 'guest', 'invited-agent', 'assistant'], shownInSpec: true },
  account: { name: 'account', members: ['customer', 'delegated', 'invited-agent', 'assistant'], shownInSpec: true },
  checkout: { name: 'checkout', members: ['customer', 'invited-agent', 'assistant'], shownInSpec: true },
  agentCheckout: { name: 'agentCheckout', members: ['delegated', 'invited-agent', 'assistant'], shownInSpec: true },
  operator: { name: 'operator', members: ['operator'], shownInSpec: true },
  diagnostic: {
    name: 'diagnostic',
    members: ['customer', 'delegated', 'guest', 'invited-agent', 'operator', 'assistant'],
    shownInSpec: false,
    note: 'The spec names a separate list for GET /v1/me without its members; the reference admits every caller kind so that any credential can be diagnosed.',
  },
  conversation: {
    name: 'conversation',
    members: ['assistant'],
    shownInSpec: false,
    note: 'The spec gives /assistant/conversations… "DPoP plus live session admission" and names no caller list; the reference admits assistants only, and of them only direct (DPoP) sessions signed in to an account: forwarded assistants (browser sessions included) are refused (docs/conversations.md).',
  },
};

/** The profile capability a deployment claims to serve each caller kind (customers always). */
export const CALLER_CAPABILITY: Readonly<
  Record<CallerKind, 'guests' | 'operators' | 'delegated' | 'invitedAgents' | 'assistants' | undefined>
> = {
  customer: undefined,
  delegated: 'delegated',
  guest: 'guests',
  'invited-agent': 'invitedAgents',
  operator: 'operators',
  assistant: 'assistants',
};
