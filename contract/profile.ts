// The profile: what a server under test shares with the suite (DESIGN.md, "The profile"). A declarative zod schema; the
// reference's configuration falls back to it and the suite reads it. fixtures/profile.schema.json is generated from it.
import { z } from 'zod';
import type { CallerKind } from './callers.js';

const secret = (what: string) => z.string().min(16).describe(what);

export const signingKeySchema = z
  .object({
    kty: z.literal('EC'),
    crv: z.literal('P-256'),
    kid: z.string().min(1),
    alg: z.literal('ES256'),
    use: z.literal('sig').optional(),
    x: z.string(),
    y: z.string(),
    d: z.string().optional().describe('Private part; present only in a profile the suite signs with.'),
  })
  .describe('An ES256 key in JWK form.');

const pointer = z.string().regex(/^(\/([^~/]|~[01])*)*$/, 'a JSON Pointer (RFC 6901), e.g. /variant_id');

/** Where the reference's members go instead: each named member moved to a JSON Pointer (absent members stay). */
const relocation = (what: string, members: string) =>
  z
    .record(z.string().min(1), pointer)
    .optional()
    .describe(
      `${what}: where each of the reference's members (${members}) sits instead, as a JSON Pointer (e.g. {"subject": "/account/id"}).`,
    );

/** A signed (HS256) artifact: its header type and where its claims sit. */
const signedArtifact = (typ: string, claims: string) =>
  z
    .object({
      typ: z.string().min(1).optional().describe(`Its JOSE header typ (default ${typ}).`),
      claims: relocation('Its claims', claims),
    })
    .strict()
    .optional();

/**
 * What a description document cannot say, or what this deployment says otherwise (docs/conformance.md, "Interoperability
 * conventions"). Every member is optional; the defaults are the reference's choices.
 */
export const conventionsSchema = z
  .object({
    headers: z
      .object({
        invitedAgentContext: z
          .string()
          .min(1)
          .optional()
          .describe(
            'Header of the signed invited-agent context (default: the `invitedAgentContext` security scheme of the description documents, else Invited-Agent-Context).',
          ),
        assistantBrowserSession: z
          .string()
          .min(1)
          .optional()
          .describe(
            "Header of an assistant agent's browser session beside the web-agent forwarder's token (default: the `assistantBrowserSession` security scheme, else Assistant-Browser-Session).",
          ),
      })
      .strict()
      .optional()
      .describe('Header names of forwarded agent artifacts, overriding the description documents.'),
    cookies: z
      .object({
        assistantBrowserSession: z
          .string()
          .regex(/^[A-Za-z0-9!#$%&'*+.^_|~-]+$/, 'a cookie name (an RFC 6265 token)')
          .optional()
          .describe(
            "Cookie that carries an assistant agent's browser session (its original browser cookie): sent as `Cookie: <name>=<value>` instead of a header (default: the `assistantBrowserSession` security scheme when it is `in: cookie`). Not together with conventions.headers.assistantBrowserSession.",
          ),
      })
      .strict()
      .optional()
      .describe('Cookie names of forwarded agent artifacts carried as cookies, overriding the description documents.'),
    bodies: z
      .record(
        z.string().min(1).describe('operationId'),
        z
          .object({
            example: z
              .unknown()
              .optional()
              .describe("A valid request body (default: the description document's example, else one generated from its schema)."),
            roles: z
              .record(z.string(), pointer)
              .optional()
              .describe(
                'Where each role (variant, quantity, payment-method, address, reason, stock-delta, message-text) sits in the body (default: the members marked `x-shop-role`).',
              ),
          })
          .strict(),
      )
      .optional()
      .describe('Request bodies by operationId, overriding the description documents.'),
    credentials: z
      .object({
        invitedAgentContext: signedArtifact('invited-agent+jwt', 'sub, agent_id, permissions, admitted_at, iat, exp, jti, ath'),
        signedOutProxyToken: signedArtifact('signed-out-proxy+jwt', 'iss, aud, sub, client_id, iat, exp, jti, sid, cnf, act, scope'),
        assistantToken: z
          .object({
            claims: relocation("The assistant access token's claims", 'sid'),
          })
          .strict()
          .optional()
          .describe(
            "An assistant's access token (the identity provider's token exchange): where its assistant session id (`sid`) sits, where it differs from the reference's (`act` and `cnf` are the spec's and RFC 9449's).",
          ),
        browserSession: z
          .object({
            prefix: z
              .string()
              .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, "_" or "-"')
              .optional()
              .describe('The version tag before the session id: `<prefix>.<session id>.<base64url HMAC-SHA-256>` (default asb1).'),
          })
          .strict()
          .optional()
          .describe("An assistant agent's browser session, MAC'd with secrets.webSessionContextKey over `<prefix>.<session id>`."),
      })
      .strict()
      .optional()
      .describe("Formats of the credentials the suite mints beside its access tokens, where they differ from the reference's."),
    proxyPayloads: z
      .object({
        agentConnected: relocation('POST /internal/assistant/agents/connected', 'subject, agent_id, client_id, permissions, session_id'),
        sessionSignedOut: relocation('POST /internal/assistant/sessions/signed-out', 'session_id, client_id, scopes'),
        agentAuthorization: relocation('POST /internal/agent-authorization', 'subject, agent_id, permissions, decision'),
      })
      .strict()
      .optional()
      .describe("Payloads of the identity-provider proxy's reports, where they differ from the reference's."),
    proxyValues: z
      .object({
        decision: z
          .object({
            granted: z.string().min(1).optional().describe('The value for an account granting the agent (default granted).'),
            revoked: z.string().min(1).optional().describe('The value for an account revoking the agent (default revoked).'),
          })
          .strict()
          .optional()
          .describe('Values of `decision` in POST /internal/agent-authorization.'),
        lists: z
          .enum(['array', 'space-delimited'])
          .optional()
          .describe('How the reports carry permissions and scopes: a JSON array of strings (default) or one space-delimited string.'),
      })
      .strict()
      .optional()
      .describe(
        "Values in the identity-provider proxy's reports, where they differ from the reference's (the members stay where conventions.proxyPayloads puts them).",
      ),
    operatorAttribution: z
      .string()
      .regex(/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/, 'visible ASCII characters')
      .optional()
      .describe('Value of the `Operator` attribution header the suite sends with every operator request (default conformance@shop.test).'),
    actionSecret: z
      .object({
        header: z
          .string()
          .regex(/^[A-Za-z0-9!#$%&'*+.^_|~-]+$/, 'a header name (an RFC 9110 token)')
          .describe('The header that carries it.'),
        scheme: z
          .string()
          .min(1)
          .optional()
          .describe('An authentication scheme before the secret (e.g. Bearer), when the header is Authorization-like.'),
      })
      .strict()
      .optional()
      .describe(
        "Where the identity provider's action script presents IDP_ACTION_SECRET to POST /internal/account/security-intents (the spec does not say; default: both `Authorization: Bearer <secret>` and `X-Idp-Action-Secret: <secret>`, and the checks that need an accepted intent are not judged when neither is taken).",
      ),
    securityIntent: z
      .object({
        example: z.record(z.string(), z.unknown()).describe('A valid security intent this deployment records.'),
        intentId: pointer.optional().describe('Where the intent id sits, written fresh for every request (default /intent_id).'),
        subject: pointer.optional().describe('Where the account subject sits, written fresh for every request (default /subject).'),
      })
      .strict()
      .optional()
      .describe(
        "The body of POST /internal/account/security-intents, which the spec does not show (default: the reference's { intent_id, subject, kind: email_change }).",
      ),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.cookies?.assistantBrowserSession !== undefined && c.headers?.assistantBrowserSession !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['cookies', 'assistantBrowserSession'],
        message: 'the browser session travels in one carrier: give this or conventions.headers.assistantBrowserSession, not both',
      });
  });

const id = z.string().min(1);
const recoveryOperation = z.object({ operationId: id, subject: id, purpose: z.enum(['email', 'delete']) }).strict();
const checkoutAccount = z.object({ sub: id, card: id.describe('Its one saved card.'), address: id.describe('Its one address.') }).strict();
const order = (what: string) =>
  z
    .object({ id, number: id.optional().describe('Its order number as shown to the customer.') })
    .strict()
    .describe(`An order ${what}.`);
/** null: the deployment holds no such data; the checks that need it are skipped, naming the field. */
const held = <T extends z.ZodType>(schema: T, what: string) =>
  schema.nullable().optional().describe(`${what} (default: the fixture seed's; null: none on this deployment).`);

/**
 * The data the deployment holds that checks need (docs/profile.md, "Data"). Every member defaults to the fixture seed's
 * (fixtures/seed.json); `null` says the deployment holds no such data, and the checks that need it are skipped with the
 * field's name.
 */
export const dataSchema = z
  .object({
    productHandle: id.optional().describe("Handle of a product (GET /v1/catalog/products/{handle}) (default: the fixture seed's)."),
    variant: id.optional().describe("A variant with plenty of stock, the cart line most checks add (default: the fixture seed's)."),
    otherVariant: id.optional().describe("A well-stocked variant of another product (default: the fixture seed's)."),
    lowStockVariant: held(
      z.object({ id, stock: z.number().int().min(1) }).strict(),
      'A variant with little stock, and its stock: one more unit is refused',
    ),
    outOfStockVariant: id.optional().describe("A variant with no stock (default: the fixture seed's)."),
    checkoutVariants: held(z.object({ beanie: id, tote: id }).strict(), 'Two well-stocked variants the checkout checks order'),
    adjustableVariant: held(
      z.object({ id, handle: id }).strict(),
      'A well-stocked variant the operator stock check adjusts by +1 then -1, and its product handle',
    ),
    endedAccounts: held(
      z.object({ deleting: id, deleted: id, contactTransition: id }).strict(),
      'A subject in each ended lifecycle state (deleting, deleted, contact_transition)',
    ),
    checkoutAccounts: held(
      z
        .object({
          ordinary: z
            .array(checkoutAccount)
            .min(8)
            .describe('At least eight: one per checkout check, so that parallel checks never share a cart.'),
          decline: checkoutAccount,
          async: checkoutAccount,
        })
        .strict(),
      'Accounts with one saved card and one address, no orders: eight ordinary ones, one whose card the provider declines, one whose payment settles by webhook',
    ),
    accounts: held(
      z
        .object({
          reader: z
            .object({
              sub: id,
              name: id.describe('Its display name.'),
              email: id,
              line1: id.describe('The first line of one of its addresses.'),
              phone: id,
              last4: z.array(id).min(1).describe('The last four digits of each of its saved cards.'),
              cardPrefix: id.describe("A prefix every one of its saved cards' ids starts with."),
              orderIds: z.array(id).min(2).describe('Its orders, newest first.'),
              addressIds: z.array(id).min(2).describe('Its addresses, newest first.'),
            })
            .strict()
            .describe('An active account the read checks read, eligible for the self-service account feature.'),
          other: z.object({ sub: id }).strict().describe('Another active account, owner of orders.other*.'),
          ineligible: z
            .object({ sub: id, name: id })
            .strict()
            .describe('An active account not eligible for the self-service account feature, and its display name.'),
          third: z.object({ sub: id }).strict().describe('A third active account, owner of orders.thirdCancelled.'),
          noCard: z.object({ sub: id }).strict().describe('An active account with an address and no saved card.'),
          foreignData: z
            .array(id)
            .min(1)
            .describe("Pieces of the other accounts' data (ids, names, emails) that the reader's reads must never show."),
        })
        .strict(),
      'Named accounts the account-data and operator checks read (all members or none)',
    ),
    orders: held(
      z
        .object({
          readerDelivered: order('delivered, of accounts.reader'),
          readerRefunded: order('refunded, of accounts.reader'),
          readerFulfilled: order('fulfilled, of accounts.reader'),
          readerPendingPayment: order('pending payment (the webhook checks settle it), of accounts.reader'),
          otherPaid: order('paid (cancellable), of accounts.other'),
          otherCancelled: order('cancelled, of accounts.other'),
          otherReturnRequested: order('with a return requested, of accounts.other'),
          thirdCancelled: order('cancelled, of accounts.third'),
        })
        .strict(),
      'Orders of the named accounts in each state (all members or none)',
    ),
    recoveryOperations: held(
      z
        .object({
          proofPending: recoveryOperation,
          providerPending: recoveryOperation,
          completeDelete: recoveryOperation,
          completeEmail: recoveryOperation,
          cancelled: recoveryOperation,
        })
        .strict(),
      'Recovery operations in each phase that no request changes',
    ),
  })
  .strict();

/** Which of the two audiences (`api`, `agent`) a caller kind's tokens use, in order of preference. */
const audienceList = (kind: CallerKind, fallback: string) =>
  z
    .array(z.enum(['api', 'agent']))
    .min(1)
    .refine((l) => new Set(l).size === l.length, 'each audience once')
    .optional()
    .describe(`Audiences of ${kind} tokens, in order; the suite mints with the first. Absent: ${fallback}.`);

/**
 * The audiences each caller kind's tokens use, where a deployment takes a kind's tokens for fewer audiences than the
 * suite assumes (e.g. delegated tokens for the API audience only). The doctor tries the others before it concludes.
 */
export const callerAudiencesSchema = z
  .object({
    customer: audienceList('customer', '["api"]'),
    delegated: audienceList('delegated', '["agent"] (the agent-protocol channel; checks of the OpenAPI channel use "api")'),
    guest: audienceList('guest', '["api"]'),
    'invited-agent': audienceList('invited-agent', '["api"] (the web-agent-forwarder token)'),
    operator: audienceList('operator', '["api"]'),
    assistant: audienceList('assistant', '["api"] (the agent-forwarder tokens too)'),
  } satisfies Record<CallerKind, z.ZodType>)
  .strict()
  .describe('Per caller kind, the audiences its tokens use (api, agent), first preferred. Absent: the defaults below.');

/** What any of the project's JSON files (a profile, the seed) may carry besides its data: the JSON Schema it names, a note. */
export const FILE_MEMBERS = { $schema: z.string().optional(), _comment: z.string().optional() };

export const profileSchema = z
  .object({
    ...FILE_MEMBERS,
    name: z.string().min(1).describe('A name for the deployment this profile describes.'),
    testOnly: z.boolean().describe('true when the keys and secrets are for tests only and must never guard real data.'),
    docsUrl: z.url().describe('Base of problem-type documentation: problem `type` is `<docsUrl>/api/problems/<error>`.'),
    issuer: z.url().describe('Issuer (`iss`) of every access token the suite mints and the server trusts.'),
    jwksUri: z.url().nullable().describe('Where the server fetches the issuer keys; null when it reads them from the profile.'),
    audiences: z
      .object({
        api: z.string().min(1).describe('Audience of access tokens for the service API.'),
        agent: z.string().min(1).describe('Audience of access tokens for the agent-protocol server.'),
        callers: callerAudiencesSchema.optional(),
      })
      .strict(),
    clients: z
      .object({
        website: z.string().min(1).describe('Client of the web storefront for signed-in customers (user tokens).'),
        storefront: z.string().min(1).describe('Machine client of the storefront for guest traffic.'),
        backoffice: z.string().min(1).describe('Machine client of the backoffice (operators).'),
        agentProtocol: z.string().min(1).describe('Client of the agent-protocol server (delegated tokens).'),
        webAgentForwarder: z.string().min(1).describe('Machine client that forwards invited agents and assistant browsers.'),
        mcpAgentForwarder: z.string().min(1).describe('Machine client that forwards signed-out assistants of the agent-protocol server.'),
        personalAgentProxy: z.string().min(1).describe('Shared client of the identity-provider proxy issuing assistant tokens.'),
      })
      .strict(),
    secrets: z
      .object({
        guestSessionKey: secret('GUEST_SESSION_KEY: HMAC key of guest session values.'),
        guestSessionKeyPrevious: secret('GUEST_SESSION_KEY_PREVIOUS: the previous guest key during rotation.').nullable(),
        guestSessionKeyPreviousUntil: z.iso
          .datetime({ offset: true })
          .nullable()
          .describe('GUEST_SESSION_KEY_PREVIOUS_UNTIL: the previous key verifies only before this instant.'),
        webSessionContextKey: secret('WEB_SESSION_CONTEXT_KEY: HMAC key of invited-agent contexts.'),
        proxyIdpSecret: secret('PROXY_IDP_SECRET: the X-Proxy-Idp-Secret of the identity-provider proxy.').nullable(),
        idpActionSecret: secret('IDP_ACTION_SECRET: shared secret of the identity provider action script.').nullable(),
        conversationHubSecret: secret('CONVERSATION_HUB_SECRET: bearer secret of the conversation hub.').nullable(),
        accountRecoverySecret: secret('ACCOUNT_RECOVERY_SECRET: bearer secret of the recovery endpoint.').nullable(),
        stripeWebhookSecret: z
          .string()
          .startsWith('whsec_')
          .nullable()
          .describe('STRIPE_WEBHOOK_SECRET: signing secret of payment webhooks.'),
      })
      .strict(),
    signingKeys: z.array(signingKeySchema).min(1).describe('Keys of the issuer; the first signs. Public parts form the JWKS.'),
    capabilities: z
      .object({
        guests: z.boolean().describe('Guest carts with storefront tokens and Guest-Session.'),
        operators: z.boolean().describe('Operator routes under /v1/ops with backoffice tokens.'),
        delegated: z.boolean().describe('Delegated callers of the agent-protocol server.'),
        invitedAgents: z.boolean().describe('Invited agents through the web-agent forwarder.'),
        assistants: z.boolean().describe('Assistant agents with DPoP, and assistant conversations.'),
        webhook: z.boolean().describe('The payment-provider webhook.'),
        recovery: z.boolean().describe('The account recovery endpoint.'),
      })
      .strict()
      .describe('What the deployment claims; checks of an unclaimed capability are skipped with the reason.'),
    data: dataSchema
      .nullable()
      .optional()
      .describe(
        "The data the deployment holds that checks need; absent members are the fixture seed's. null: the deployment holds none of it.",
      ),
    conventions: conventionsSchema
      .optional()
      .describe('Interoperability conventions: what the description documents cannot say, or where this deployment differs from them.'),
    rateLimits: z
      .object({
        guestBudget: z.number().int().positive().describe('Guest requests per operation id and shopper in one window.'),
        guestWindowSeconds: z.number().int().positive().describe('Length of a guest rate-limit window in seconds.'),
        assistantSessionBudget: z.number().int().positive().optional().describe('Assistant requests per assistant session in one window.'),
        assistantClientBudget: z.number().int().positive().optional().describe('Assistant requests per agent client in one window.'),
        assistantClient: z
          .enum(['reported', 'token'])
          .optional()
          .describe(
            "Which client an assistant's client budget belongs to: the agent's client as the identity-provider proxy reports it (`client_id` of the connected-agent report; default), or the access token's `client_id` (one budget for every direct assistant).",
          ),
        assistantWindowSeconds: z.number().int().positive().optional().describe('Length of an assistant rate-limit window in seconds.'),
      })
      .strict()
      .optional()
      .describe("The deployment's guest budgets, so that the suite knows how many requests exceed one."),
  })
  .strict();

export type Profile = z.infer<typeof profileSchema>;
export type SigningKey = z.infer<typeof signingKeySchema>;
