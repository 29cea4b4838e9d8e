// Bodies of the internal routes (docs/internal-routes.md). Every object is strict: an unknown member is 400
// `invalid_request`. The recovery request is the spec's (Resources > Account recovery request); the other shapes are the
// reference's (the spec does not show them). No schema here is registered with an id, so none becomes a component of the
// description documents by itself: openapi.ts inlines them in the internal routes' path items.
import { z } from 'zod';
import { LIMITS } from '../../../contract/limits.js';

/** A string of `min`–`max` characters, counted as Unicode code points (what the spec and JSON Schema call characters). */
export function chars(min: number, max: number, description?: string) {
  return z
    .string()
    .superRefine((value, ctx) => {
      const n = [...value].length;
      if (n < min)
        ctx.addIssue({
          code: 'too_small',
          origin: 'string',
          minimum: min,
          inclusive: true,
          input: value,
          message: `Expected at least ${min} character${min === 1 ? '' : 's'}.`,
        });
      if (n > max)
        ctx.addIssue({
          code: 'too_big',
          origin: 'string',
          maximum: max,
          inclusive: true,
          input: value,
          message: `Expected at most ${max} characters.`,
        });
    })
    .meta({ minLength: min, maxLength: max, ...(description ? { description } : {}) });
}

/** Identifiers chosen by the callers: 1–128 printable ASCII characters, no spaces. */
const identifier = (description: string) =>
  z
    .string()
    .regex(/^[\x21-\x7E]{1,128}$/, 'Expected 1–128 printable ASCII characters without spaces.')
    .describe(description);
/** An OAuth scope token (RFC 6749 §3.3): a permission such as `assistant:read`. Unknown permissions are kept; they unlock nothing. */
const scopeToken = z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/, 'Expected a scope token of 1–64 characters.');
const scopeList = (description: string) => z.array(scopeToken).max(32).describe(description);
const subject = chars(1, 256, 'The account: the token `sub` the identity provider issues for it.');

// ------------------------------------------------------------------------------------------------------------- recovery

export const RECOVERY_PURPOSES = ['email', 'delete'] as const;
export const RECOVERY_STATUSES = ['complete', 'pending', 'cancelled'] as const;

/** Spec, Resources > Account recovery request: exactly these three members. */
export const recoveryRequestSchema = z
  .strictObject({
    subject: chars(
      LIMITS.recoverySubjectChars.min,
      LIMITS.recoverySubjectChars.max,
      'The account that owns the operation (its token `sub`).',
    ),
    operationId: chars(LIMITS.recoveryOperationIdChars.min, LIMITS.recoveryOperationIdChars.max, 'The approved operation to resume.'),
    purpose: z.enum(RECOVERY_PURPOSES).describe('What the operation does: `email` (an email change) or `delete` (an account deletion).'),
  })
  .describe('No other members are accepted: no new email, no provider command.');

export const recoveryResponseSchema = z.strictObject({
  status: z
    .enum(RECOVERY_STATUSES)
    .describe(
      '`complete`: finished; `pending`: the provider condition remains, retry the same operation; `cancelled`: the authorization is retired.',
    ),
  operationId: z.string(),
});

// ----------------------------------------------------------------------------------------------------- security intents

export const SECURITY_INTENT_KINDS = [
  'email_change',
  'phone_change',
  'account_deletion',
  'security_method_change',
  'fresh_verification',
] as const;

export const securityIntentSchema = z.strictObject({
  intent_id: identifier("The action script's id of the intent; a repeat with the same id records nothing new."),
  subject,
  kind: z.enum(SECURITY_INTENT_KINDS).describe('What the customer set out to do in the identity provider.'),
  occurred_at: z.iso.datetime({ offset: true }).optional().describe('When the identity provider saw it (ISO 8601).'),
  details: z
    .record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/), z.union([z.string().max(1024), z.number(), z.boolean(), z.null()]))
    .refine((r) => Object.keys(r).length <= 32, 'At most 32 details.')
    .optional()
    .describe('Flat facts about the intent (at most 32, scalar values); the whole body is bounded to 8 KiB.'),
});

export const securityIntentResponseSchema = z.strictObject({
  intent_id: z.string(),
  status: z
    .enum(['recorded', 'duplicate'])
    .describe('`recorded` (202) the first time, `duplicate` (200) for a repeat of the same intent_id.'),
  received_at: z.iso.datetime(),
});

// --------------------------------------------------------------------------------------- identity-provider proxy reports

export const signedOutSessionSchema = z.strictObject({
  session_id: identifier('The assistant session the proxy issued tokens for.'),
  client_id: chars(1, 256, "The agent's client at the proxy."),
  scopes: scopeList("The session's live scopes while signed out (base authority only, whatever they name)."),
});

export const assistantSessionResponseSchema = z.strictObject({
  session_id: z.string(),
  state: z.enum(['signed_in', 'signed_out']),
  scopes: z.array(z.string()),
});

export const agentConnectedSchema = z.strictObject({
  subject,
  agent_id: identifier('The agent the customer connected.'),
  client_id: chars(1, 256, "The agent's client at the proxy."),
  permissions: scopeList('Permissions granted (`assistant:read`, `assistant:write`, `checkout`; unknown ones unlock nothing).'),
  session_id: identifier('The assistant session now signed in to the account, if any.').optional(),
});

export const agentConnectedResponseSchema = z.strictObject({
  subject: z.string(),
  agent_id: z.string(),
  permissions: z.array(z.string()),
  decision: z.literal('granted'),
  session_id: z.string().optional(),
});

export const agentAuthorizationSchema = z.strictObject({
  subject,
  agent_id: identifier('The agent the decision is about.'),
  permissions: scopeList('The permissions granted (ignored, and stored empty, when revoked).'),
  decision: z.enum(['granted', 'revoked']),
});

export const agentAuthorizationResponseSchema = z.strictObject({
  subject: z.string(),
  agent_id: z.string(),
  permissions: z.array(z.string()),
  decision: z.enum(['granted', 'revoked']),
});

// ----------------------------------------------------------------------------------------------------- conversation hub

export const conversationParamsSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'Expected a conversation id of 1–128 characters [A-Za-z0-9._:-].')
    .describe('The conversation.'),
});

export const conversationTurnSchema = z.strictObject({
  turn_id: identifier("The hub's id of the turn."),
  author: z.enum(['agent', 'operator', 'system']).describe('Who wrote the turn.'),
  text: chars(1, 8000, "The turn's text."),
  sent_at: z.iso.datetime({ offset: true }).optional(),
});

export const handoffTimeoutSchema = z.strictObject({
  handoff_id: identifier("The hub's id of the handoff that timed out."),
  timed_out_at: z.iso.datetime({ offset: true }).describe('When the handoff timed out (ISO 8601).'),
});
