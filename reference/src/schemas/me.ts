// The diagnostic read GET /v1/me: who the service thinks the caller is (the reference's choice of shape).
import { z } from 'zod';
import { CALLER_KINDS } from '../../../contract/callers.js';

export const meSchema = z
  .object({
    caller_kind: z.enum(CALLER_KINDS),
    client_id: z.string(),
    subject: z.string(),
    account: z.object({ sub: z.string(), state: z.string(), display_name: z.string() }).nullable(),
    scopes: z.array(z.string()).describe("The token's API scopes."),
    permissions: z
      .array(z.string())
      .nullable()
      .describe(
        "Agent callers: the account permissions in force, the effective scopes (invited agents: the context's; assistants: the token's permissions intersected with the session's live scopes). Null for other callers.",
      ),
    channel: z.enum(['web', 'mcp', 'openapi']).nullable(),
    origin: z.enum(['oauth', 'assistant']).nullable(),
    actor_chain: z.array(z.string()),
    guest_cart_id: z.string().nullable(),
    operator: z.string().nullable(),
  })
  .meta({ id: 'Me' });
