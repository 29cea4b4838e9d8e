// The internal routes (spec, Public and special routes): callers are other components holding a shared secret, not token
// holders. Their rows (contract/routes.ts) name the secret, its carrier and the body limit; the stage table wires them
// (STAGE_TABLE.internal in pipeline/groups.ts): request (app-wide) → domain → shared secret → bounded body → input
// validation → handler → output validation. docs/internal-routes.md describes every route.
import { ProblemError } from '../problem.js';
import { resumeRecovery } from '../store/recovery.js';
import { authorizeAgent, connectAgent, recordSecurityIntent, registerSignedOutSession } from '../store/internal.js';
import { recordHandoffTimeout, recordHubTurn } from '../store/conversations.js';
import type { RouteDef } from '../pipeline/route.js';
import { defineSpecialRoute } from './define.js';
import {
  agentAuthorizationResponseSchema,
  agentAuthorizationSchema,
  agentConnectedResponseSchema,
  agentConnectedSchema,
  assistantSessionResponseSchema,
  conversationParamsSchema,
  conversationTurnSchema,
  handoffTimeoutSchema,
  recoveryRequestSchema,
  recoveryResponseSchema,
  securityIntentResponseSchema,
  securityIntentSchema,
  signedOutSessionSchema,
} from '../schemas/internal.js';

const conversationNotFound = () => new ProblemError('not_found', { detail: 'No conversation has this id.' });

/** In the order of their rows (INTERNAL_ROWS), which is the description document's. */
export const INTERNAL_ROUTES: readonly RouteDef[] = [
  defineSpecialRoute({
    operationId: 'recordSecurityIntent',
    summary: "Record a security intent of the identity provider's action script",
    description:
      "Called by the identity provider's action script (`Authorization: Bearer <IDP_ACTION_SECRET>`); not exposed by the storefront proxy. The body is read through a bounded reader of 8 KiB. Recorded once per `intent_id`.",
    body: securityIntentSchema,
    successes: [
      { status: 202, schema: securityIntentResponseSchema, description: 'Recorded.' },
      { status: 200, schema: securityIntentResponseSchema, description: 'Already recorded under this intent_id: nothing changed.' },
    ],
    handle: ({ domain, input: { body } }) => {
      const r = recordSecurityIntent(domain.db, body, domain.clock());
      return {
        status: r.created ? 202 : 200,
        body: { intent_id: body.intent_id, status: r.created ? 'recorded' : 'duplicate', received_at: r.receivedAt },
      };
    },
  }),
  defineSpecialRoute({
    operationId: 'registerSignedOutAssistantSession',
    summary: 'Register a signed-out assistant session (identity-provider proxy)',
    description: 'The proxy reports an assistant session that is signed out (a new one, or one that signed out), with its live scopes.',
    body: signedOutSessionSchema,
    successes: [
      { status: 201, schema: assistantSessionResponseSchema, description: 'A new session.' },
      { status: 200, schema: assistantSessionResponseSchema, description: 'A known session, now signed out with these scopes.' },
    ],
    handle: ({ domain, input: { body } }) => {
      const r = registerSignedOutSession(domain.db, body, domain.clock());
      return {
        status: r.created ? 201 : 200,
        body: { session_id: r.session.session_id, state: r.session.state, scopes: r.session.scopes },
      };
    },
  }),
  defineSpecialRoute({
    operationId: 'recordConnectedAgent',
    summary: 'Record that a customer connected an agent (identity-provider proxy)',
    description:
      'Records the connection and a `granted` authorization; with `session_id`, that assistant session is signed in to the account with the permissions as its live scopes.',
    body: agentConnectedSchema,
    successes: [
      { status: 201, schema: agentConnectedResponseSchema, description: 'A new connection.' },
      { status: 200, schema: agentConnectedResponseSchema, description: 'A known connection, updated.' },
    ],
    handle: ({ domain, input: { body } }) => {
      const r = connectAgent(domain.db, body, domain.clock());
      const permissions = [...new Set<string>(body.permissions)];
      return {
        status: r.created ? 201 : 200,
        body: {
          subject: body.subject,
          agent_id: body.agent_id,
          permissions,
          decision: 'granted',
          ...(body.session_id !== undefined ? { session_id: body.session_id } : {}),
        },
      };
    },
  }),
  defineSpecialRoute({
    operationId: 'recordAgentAuthorization',
    summary: "Record an account's authorization decision about an agent (identity-provider proxy)",
    description:
      "`granted` sets the permissions and the live scopes of the agent's signed-in sessions; `revoked` signs those sessions out.",
    body: agentAuthorizationSchema,
    successes: [{ status: 200, schema: agentAuthorizationResponseSchema, description: 'The decision now in force.' }],
    handle: ({ domain, input: { body } }) => {
      const r = authorizeAgent(domain.db, body, domain.clock());
      const a = r.authorization;
      return { status: 200, body: { subject: a.subject, agent_id: a.agent_id, permissions: a.permissions, decision: a.decision } };
    },
  }),
  defineSpecialRoute({
    operationId: 'recordConversationTurn',
    summary: 'Deliver a turn of the conversation hub',
    description:
      "Appends the turn as a message of the open conversation `{id}` and sends it to the conversation's event streams (docs/conversations.md). Once per `turn_id`: a repeated turn is accepted again and changes nothing. An unknown conversation, or one that is no longer open, is 404 `not_found`.",
    params: conversationParamsSchema,
    body: conversationTurnSchema,
    successes: [{ status: 202, schema: null, description: 'Accepted: the turn is in the conversation (or already was).' }],
    errors: ['not_found'],
    handle: ({ domain, input: { params, body } }) => {
      const r = recordHubTurn(domain, params.id, body, domain.clock());
      if (!r.ok)
        throw r.reason === 'not_found'
          ? conversationNotFound()
          : new ProblemError('not_found', { detail: 'The conversation is no longer open.' });
      return { status: 202 };
    },
  }),
  defineSpecialRoute({
    operationId: 'recordConversationHandoffTimeout',
    summary: 'Report that a conversation handoff timed out (conversation hub)',
    description:
      'The open handoff conversation `{id}` becomes `timed_out`; its event streams get a `status` event and end (docs/conversations.md). A conversation that already ended is left as it is (202 again). An unknown id, or a direct conversation (it has no handoff), is 404 `not_found`.',
    params: conversationParamsSchema,
    body: handoffTimeoutSchema,
    successes: [{ status: 202, schema: null, description: 'Accepted: the conversation has timed out (or had already ended).' }],
    errors: ['not_found'],
    handle: ({ domain, input: { params, body } }) => {
      const r = recordHandoffTimeout(domain, params.id, body, domain.clock());
      if (!r.ok) throw new ProblemError('not_found', { detail: 'No handoff conversation has this id.' });
      return { status: 202 };
    },
  }),
  defineSpecialRoute({
    operationId: 'recoverAccount',
    summary: 'Resume an approved email change or account deletion (operator recovery)',
    description:
      'Only `Authorization: Bearer <ACCOUNT_RECOVERY_SECRET>` is accepted (no other secret, no access token); closed (404 `not_configured`) when the secret is not configured. Checks ownership, purpose and the persisted phase; never begins an operation from unconsumed proof, takes no new email and runs no provider command; repeating it never grants fresh authority.',
    body: recoveryRequestSchema,
    successes: [
      { status: 200, schema: recoveryResponseSchema, description: '`complete`, `pending` (retry the same operation) or `cancelled`.' },
    ],
    errors: ['recovery_not_found', 'recovery_pending'],
    handle: async ({ domain, input: { body } }) => {
      const outcome = await resumeRecovery(domain.db, body, domain.clock);
      domain.log.info('recovery', {
        operationId: body.operationId,
        purpose: body.purpose,
        outcome: outcome.kind === 'status' ? outcome.status : outcome.kind,
      });
      switch (outcome.kind) {
        case 'status':
          return { status: 200, body: { status: outcome.status, operationId: body.operationId } };
        case 'not_found':
          throw new ProblemError('recovery_not_found', { detail: 'No matching resumable authorization.' });
        case 'in_progress':
          throw new ProblemError('recovery_pending', { detail: 'A recovery of this operation is still in progress; retry later.' });
      }
    },
  }),
];
