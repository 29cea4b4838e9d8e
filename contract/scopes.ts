// Spec, Authentication > Scope translation: permission -> API scopes. Data only.

export const BASE_API_SCOPES = ['catalog:read', 'cart:read', 'cart:write'] as const;

export const PERMISSIONS = ['assistant:read', 'assistant:write', 'checkout'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** API scopes each account permission unlocks, on top of the base scopes. Unknown permissions unlock nothing more. */
export const PERMISSION_API_SCOPES: Readonly<Record<Permission, readonly string[]>> = {
  'assistant:read': ['account:read', 'payment_methods:read', 'orders:read'],
  'assistant:write': ['account:write', 'orders:write'],
  checkout: ['checkout'],
};

/** Scope a machine forwarder needs to forward agents (spec, Scope translation). */
export const AGENT_FORWARD_SCOPE = 'agent:forward';

/** Operator scopes: the spec does not show them; the reference's choice. */
export const OPERATOR_SCOPES = ['ops:read', 'ops:write'] as const;

/** Every API scope of the permission table (Scope translation), base scopes included. */
export const API_SCOPES: readonly string[] = [...BASE_API_SCOPES, ...Object.values(PERMISSION_API_SCOPES).flat()];
