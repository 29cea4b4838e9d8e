// `shop-conformance token <kind>`: an access token of one caller kind, minted from the profile exactly as docs/tokens.md fixes
// it (conformance/lib/mint.ts does the minting), together with every other header that kind of caller sends.
import { randomUUID } from 'node:crypto';
import { Argument, Option, type Command } from 'commander';
import { decodeJwt, type JWK, type JWTPayload } from 'jose';
import type { Profile } from '../../contract/profile.js';
import { HEADERS } from '../../contract/headers.js';
import { createMinter, type Audience, type TokenOptions } from '../../conformance/lib/mint.js';
import { createDpopKey, type DpopKey } from '../../conformance/lib/dpop.js';
import type { JsonObject } from '../../conformance/lib/jws.js';
import { makeProof, readDpopKeyFile } from './dpop.js';
import { mintGuestSession } from './guest-session.js';
import { action, FIXTURE_PROFILE, loadProfile, print, PROFILE_OPTION_HELP, UsageError } from './profile.js';

export const TOKEN_KINDS = ['customer', 'delegated', 'guest', 'operator', 'invited-agent', 'assistant', 'mcp-agent-forwarder'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

/** Kinds whose token (or, for invited agents, whose context) speaks for an account: `--sub` names it. */
export const USER_KINDS: readonly TokenKind[] = ['customer', 'delegated', 'invited-agent', 'assistant'];
export const DEFAULT_SUB = 'cust_ada';
export const DEFAULT_OPERATOR = 'ops@shop.test';
export const DEFAULT_AGENT_ID = 'agent_cli';
export const DEFAULT_PERMISSIONS = ['assistant:read'] as const;

export interface CredentialRequest {
  kind: TokenKind;
  /** Account subject of user kinds (default cust_ada). */
  sub?: string;
  /** Replaces the kind's default scopes (joined with spaces). */
  scope?: readonly string[];
  audience?: Audience;
  /** Delegated only: `mcp` (agent audience, default) or `openapi` (API audience). */
  channel?: 'mcp' | 'openapi';
  expiresIn?: number;
  /** Claim overrides of the access token, merged last; `undefined` removes a claim. */
  claims?: JsonObject;
  /** Operator: the `Operator` attribution header. */
  operator?: string;
  /** Guest: false leaves out the Guest-Session header; uuid signs that cart id. */
  session?: boolean;
  uuid?: string;
  /** Invited agent: the context's agent id, permissions and claim overrides. */
  agentId?: string;
  permissions?: readonly string[];
  contextClaims?: JsonObject;
  /** Assistant: the key `cnf.jkt` names (generated when absent), the session id, and a request to prove for. */
  dpopKey?: DpopKey;
  sid?: string;
  proofFor?: { method: string; url: string; nonce?: string };
  /** MCP agent forwarder: the original token of the signed-out assistant, sent in Assistant-Subject. */
  assistantSubject?: string;
  now?: () => Date;
}

export interface Credential {
  token: string;
  kind: TokenKind;
  /** Every header the caller sends, Authorization first. */
  headers: Record<string, string>;
  /** The access token's claims, as minted. */
  claims: JWTPayload;
  /** ISO 8601 of `exp`; null when an override made it no number. */
  expiresAt: string | null;
  /** Invited agent: the signed context and its claims. */
  context?: { token: string; claims: JWTPayload };
  /** Assistant: the thumbprint the token is bound to, and the private key when it was generated here. */
  jkt?: string;
  dpopKey?: JWK;
}

/** Mints the credential of one caller kind and the headers that go with it. Throws UsageError for unusable inputs. */
export async function mintCredential(profile: Profile, r: CredentialRequest): Promise<Credential> {
  const key = profile.signingKeys[0];
  if (!key?.d)
    throw new UsageError(
      `profile "${profile.name}": signing key ${key?.kid ?? '(none)'} has no private part "d", so the suite cannot mint with it (is it a deployment's copy?)`,
    );
  const minter = createMinter(profile, r.now ? { now: r.now } : {});
  const common: TokenOptions = {
    ...(r.scope !== undefined ? { scope: r.scope.join(' ') } : {}),
    ...(r.audience !== undefined ? { audience: r.audience } : {}),
    ...(r.expiresIn !== undefined ? { expiresIn: r.expiresIn } : {}),
    ...(r.claims !== undefined ? { claims: r.claims } : {}),
  };
  const sub = r.sub ?? DEFAULT_SUB;
  const headers: Record<string, string> = {};
  const extra: Partial<Credential> = {};
  let token: string;

  switch (r.kind) {
    case 'customer':
      token = await minter.customer({ ...common, sub });
      break;
    case 'delegated':
      token = await minter.delegated({ ...common, sub, ...(r.channel ? { channel: r.channel } : {}) });
      break;
    case 'guest':
      token = await minter.guest(common);
      if (r.session !== false)
        headers[HEADERS.guestSession] = mintGuestSession(profile, r.uuid !== undefined ? { uuid: r.uuid } : {}).value;
      break;
    case 'operator':
      token = await minter.operator(common);
      headers[HEADERS.operator] = r.operator ?? DEFAULT_OPERATOR;
      break;
    case 'invited-agent': {
      token = await minter.invitedAgentForwarder(common);
      const context = await minter.invitedAgentContext({
        sub,
        agentId: r.agentId ?? DEFAULT_AGENT_ID,
        permissions: r.permissions ?? DEFAULT_PERMISSIONS,
        forwarderToken: token,
        ...(r.expiresIn !== undefined ? { expiresIn: r.expiresIn } : {}),
        ...(r.contextClaims !== undefined ? { claims: r.contextClaims } : {}),
      });
      headers[HEADERS.invitedAgentContext] = context;
      extra.context = { token: context, claims: decodeJwt(context) };
      break;
    }
    case 'assistant': {
      const dpopKey = r.dpopKey ?? (await createDpopKey());
      if (!r.dpopKey) extra.dpopKey = dpopKey.privateJwk;
      extra.jkt = dpopKey.thumbprint;
      token = await minter.assistant({ ...common, sub, jkt: dpopKey.thumbprint, sid: r.sid ?? randomUUID() });
      if (r.proofFor) headers[HEADERS.dpop] = (await makeProof({ key: dpopKey, token, ...r.proofFor })).proof;
      break;
    }
    case 'mcp-agent-forwarder':
      token = await minter.mcpAgentForwarder(common);
      if (r.assistantSubject !== undefined) headers[HEADERS.assistantSubject] = r.assistantSubject;
      break;
  }

  const claims = decodeJwt(token);
  const scheme = r.kind === 'assistant' ? 'DPoP' : 'Bearer';
  return {
    token,
    kind: r.kind,
    headers: { Authorization: `${scheme} ${token}`, ...headers },
    claims,
    expiresAt: typeof claims.exp === 'number' && Number.isFinite(claims.exp) ? new Date(claims.exp * 1000).toISOString() : null,
    ...extra,
  };
}

/** `name=json` → [name, value]; a value that is not JSON is taken as a string, and an empty value removes the claim. */
export function parseClaim(spec: string): [string, unknown] {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new UsageError(`--claim expects name=value, e.g. exp=1 or act='{"sub":"x"}' (got ${JSON.stringify(spec)})`);
  const name = spec.slice(0, eq);
  const raw = spec.slice(eq + 1);
  if (raw === '') return [name, undefined];
  try {
    return [name, JSON.parse(raw)];
  } catch {
    return [name, raw];
  }
}

export function parseClaims(specs: readonly string[] | undefined): JsonObject | undefined {
  if (!specs?.length) return undefined;
  return Object.fromEntries(specs.map(parseClaim));
}

function parseSeconds(value: string): number {
  if (!/^-?\d+$/.test(value)) throw new UsageError(`--expires-in must be a whole number of seconds (got ${JSON.stringify(value)})`);
  return Number(value);
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

interface Options {
  profile: string;
  sub?: string;
  scope?: string[];
  audience?: Audience;
  channel?: 'mcp' | 'openapi';
  expiresIn?: string;
  claim?: string[];
  operator: string;
  session: boolean;
  uuid?: string;
  agentId: string;
  permission: string[];
  contextClaim?: string[];
  dpopKey?: string;
  sid?: string;
  method: string;
  url?: string;
  nonce?: string;
  assistantSubject?: string;
  json: boolean;
  headers: boolean;
}

/** Options that only mean something for some kinds: giving one to another kind is a usage error, not silently ignored. */
const KIND_OPTIONS: Readonly<Partial<Record<keyof Options, { flag: string; kinds: readonly TokenKind[] }>>> = {
  sub: { flag: '--sub', kinds: USER_KINDS },
  channel: { flag: '--channel', kinds: ['delegated'] },
  operator: { flag: '--operator', kinds: ['operator'] },
  session: { flag: '--no-session', kinds: ['guest'] },
  uuid: { flag: '--uuid', kinds: ['guest'] },
  agentId: { flag: '--agent-id', kinds: ['invited-agent'] },
  permission: { flag: '--permission', kinds: ['invited-agent'] },
  contextClaim: { flag: '--context-claim', kinds: ['invited-agent'] },
  dpopKey: { flag: '--dpop-key', kinds: ['assistant'] },
  sid: { flag: '--sid', kinds: ['assistant'] },
  method: { flag: '--method', kinds: ['assistant'] },
  url: { flag: '--url', kinds: ['assistant'] },
  nonce: { flag: '--nonce', kinds: ['assistant'] },
  assistantSubject: { flag: '--assistant-subject', kinds: ['mcp-agent-forwarder'] },
};

export function addTokenCommand(program: Command): void {
  program
    .command('token')
    .description('Mint an access token of one caller kind from the profile (docs/tokens.md), with the other headers that caller sends.')
    .addArgument(new Argument('<kind>', 'caller kind').choices(TOKEN_KINDS))
    .option('--profile <file>', PROFILE_OPTION_HELP, FIXTURE_PROFILE)
    .option('--sub <sub>', `account subject (user kinds: customer, delegated, invited-agent, assistant; default ${DEFAULT_SUB})`)
    .option('--scope <scopes...>', "scopes replacing the kind's defaults (space-separated values or several arguments; '' for none)")
    .addOption(
      new Option('--audience <audience>', 'profile audience in aud (default api; delegated: from --channel)').choices(['api', 'agent']),
    )
    .addOption(
      new Option('--channel <channel>', 'delegated: mcp mints for the agent audience, openapi for the API audience').choices([
        'mcp',
        'openapi',
      ]),
    )
    .option('--expires-in <seconds>', 'lifetime in seconds (default 300; negative: already expired)')
    .option(
      '--claim <name=json>',
      'override a claim of the access token (repeatable); non-JSON values are strings, name= removes it',
      collect,
    )
    .option('--operator <id>', 'operator: the Operator attribution header', DEFAULT_OPERATOR)
    .option('--no-session', 'guest: leave out the Guest-Session header (a guest read of the empty cart)')
    .option('--uuid <uuid>', 'guest: sign this cart id in Guest-Session instead of a fresh one')
    .option('--agent-id <id>', 'invited-agent: agent_id of the context', DEFAULT_AGENT_ID)
    .option('--permission <permissions...>', 'invited-agent: permissions of the context', [...DEFAULT_PERMISSIONS])
    .option('--context-claim <name=json>', 'invited-agent: override a claim of the context (repeatable)', collect)
    .option(
      '--dpop-key <file>',
      'assistant: private JWK the token is bound to (cnf.jkt), as `dpop --new-key` writes; generated when absent',
    )
    .option('--sid <sid>', 'assistant: the assistant session id (default: a random UUID)')
    .option('--url <url>', 'assistant: also print a DPoP proof for a request to this URL')
    .option('--method <method>', 'assistant: method of that request', 'GET')
    .option('--nonce <nonce>', 'assistant: DPoP-Nonce to put in that proof')
    .option('--assistant-subject <token>', "mcp-agent-forwarder: the signed-out assistant's original token, sent in Assistant-Subject")
    .option('--json', 'print { token, kind, headers, claims, expiresAt, ... } instead of the bare token', false)
    .option('--headers', 'print every header to send as "Name: value" lines (for curl -H @file)', false)
    .addHelpText(
      'after',
      `
Without --json or --headers, stdout is the bare token and any other header of the kind goes to stderr.
Kinds and what they send (docs/tokens.md):
  customer             Authorization: Bearer <website user token>
  delegated            Authorization: Bearer <agent-protocol token with act>
  guest                Authorization: Bearer <storefront token>, Guest-Session: gs1.<uuid>.<sig>
  operator             Authorization: Bearer <backoffice token>, Operator: <id>
  invited-agent        Authorization: Bearer <web-agent-forwarder token>, Invited-Agent-Context: <invited-agent+jwt>
  assistant            Authorization: DPoP <proxy token bound to a key>, DPoP: <proof> (see \`dpop\`)
  mcp-agent-forwarder  Authorization: Bearer <forwarder token>, Assistant-Subject: <original token>

An assistant token is accepted only for a session the deployment knows, with a proof carrying its last DPoP-Nonce:
\`assistant session\` registers one and fetches a nonce (below), or does it all at once.

SHOP is the deployment's URL, such as http://127.0.0.1:8787 of \`shop-conformance serve\`.

Examples:
  $ curl "$SHOP/v1/me" -H "Authorization: Bearer $(shop-conformance token customer)"
  $ shop-conformance token customer --sub cust_ben --scope catalog:read cart:read --expires-in 60
  $ shop-conformance token delegated --channel openapi --json
  $ curl "$SHOP/v1/cart" -H @<(shop-conformance token guest --headers)
  $ curl "$SHOP/v1/ops/orders" -H @<(shop-conformance token operator --operator alice@shop.test --headers)
  $ curl "$SHOP/v1/me" -H @<(shop-conformance token invited-agent --agent-id agent_7 --permission assistant:read checkout --headers)
  $ eval "$(shop-conformance assistant session --base-url "$SHOP" --key assistant.jwk)"   # sets ASSISTANT_SESSION, DPOP_NONCE
  $ curl "$SHOP/v1/me" -H @<(shop-conformance token assistant --dpop-key assistant.jwk --sid "$ASSISTANT_SESSION" \\
      --url "$SHOP/v1/me" --nonce "$DPOP_NONCE" --headers)
  $ shop-conformance token customer --claim exp=1 --claim 'act={"sub":"someone"}'    # for negative tests`,
    )
    .action(
      action('token', async (kind: TokenKind, o: Options, cmd: Command) => {
        for (const [name, rule] of Object.entries(KIND_OPTIONS) as [keyof Options, { flag: string; kinds: readonly TokenKind[] }][]) {
          if (cmd.getOptionValueSource(name) === 'cli' && !rule.kinds.includes(kind)) {
            throw new UsageError(
              `${rule.flag} does not apply to ${kind} tokens (only ${rule.kinds.join(', ')})${name === 'sub' ? '; use --claim sub=... to override a machine sub' : ''}`,
            );
          }
        }
        if (o.json && o.headers) throw new UsageError('--json and --headers are exclusive');
        // An empty Assistant-Subject header is no token at all: the forwarder would send nothing a server could check.
        if (o.assistantSubject !== undefined && o.assistantSubject.trim() === '')
          throw new UsageError("--assistant-subject: empty; pass the signed-out assistant's original token");
        const profile = loadProfile(o.profile);
        const credential = await mintCredential(profile, {
          kind,
          ...(o.sub !== undefined ? { sub: o.sub } : {}),
          ...(o.scope !== undefined ? { scope: o.scope } : {}),
          ...(o.audience !== undefined ? { audience: o.audience } : {}),
          ...(o.channel !== undefined ? { channel: o.channel } : {}),
          ...(o.expiresIn !== undefined ? { expiresIn: parseSeconds(o.expiresIn) } : {}),
          ...(o.claim ? { claims: parseClaims(o.claim) } : {}),
          operator: o.operator,
          session: o.session,
          ...(o.uuid !== undefined ? { uuid: o.uuid } : {}),
          agentId: o.agentId,
          permissions: o.permission,
          ...(o.contextClaim ? { contextClaims: parseClaims(o.contextClaim) } : {}),
          ...(o.dpopKey !== undefined ? { dpopKey: await readDpopKeyFile(o.dpopKey) } : {}),
          ...(o.sid !== undefined ? { sid: o.sid } : {}),
          ...(o.url !== undefined
            ? { proofFor: { method: o.method, url: o.url, ...(o.nonce !== undefined ? { nonce: o.nonce } : {}) } }
            : {}),
          ...(o.assistantSubject !== undefined ? { assistantSubject: o.assistantSubject } : {}),
        });
        if (kind === 'assistant' && o.dpopKey === undefined && !o.json) {
          process.stderr.write(
            'warning: bound to a generated DPoP key that is not saved: pass --dpop-key <file> (`dpop --new-key <file>` makes one) or --json\n',
          );
        }
        if (o.json) return print(credential);
        const lines = Object.entries(credential.headers).map(([name, value]) => `${name}: ${value}`);
        if (o.headers) return print(lines.join('\n'));
        for (const line of lines.slice(1)) process.stderr.write(`also send ${line}\n`);
        print(credential.token);
      }),
    );
}
