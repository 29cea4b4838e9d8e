// One deployment as a sequence sees it: the plan steps resolved to concrete requests (that deployment's own ids, bodies
// built from its own description documents, its own data), credentials minted afresh for every sequence, and the answers
// read back. The target and the lockstep reference each get a World; both share the run's guest sessions and keys.
import { randomUUID } from 'node:crypto';
import type { Profile } from '../../contract/profile.js';
import { ShopHttp, type TlsOptions } from '../engine/transport/http.js';
import { parseDocument, Target } from '../engine/transport/target.js';
import { DESCRIPTION, ASSISTANT_DESCRIPTION } from '../../contract/routes.js';
import { createMinter, type Minter } from '../lib/mint.js';
import { newGuestSession } from '../lib/guest-session.js';
import { freshShopperIp } from '../lib/shopper.js';
import type { Answer, Step } from './exchange.js';
import type { PlanStep } from './plan.js';
import { applyBodyShape } from './bodies.js';
import { alterBody } from './rekey.js';
import { credentialsOfToken, describeToken, type TokenKind } from './tokens.js';
import { describeProof } from './proofs.js';
import { describeSession } from './sessions.js';
import { describeContext } from './contexts.js';
import { OPERATIONS_BY_ID } from '../../contract/operations.js';
import { COMMANDS_BY_ID } from './commands.js';
import { resolveSpecial, routeCredential, specialRowOf } from './special-routes.js';
import { AgentCallers, isAgentCaller } from './agent-callers.js';
import { guestHeadersOf, mintCredentials, mutateBody, shapedContextHeaders, shapedSessionHeaders } from './world-credentials.js';

/** The data a sequence acts on: two accounts with a saved card each, two well-stocked variants (profile `data`, else the seed's). */
export interface Fixture {
  accounts: { a: { sub: string; card: string; address: string }; b: { sub: string; card: string; address: string } };
  variants: [string, string];
}

export function fixtureOf(profile: Profile): Fixture {
  const data = profile.data ?? {};
  const ordinary = data.checkoutAccounts?.ordinary;
  // The last two ordinary checkout accounts: the checks use the first ones.
  const a = ordinary?.[ordinary.length - 1] ?? { sub: 'cust_checkout_8', card: 'pm_chk8', address: 'addr_chk8' };
  const b = ordinary?.[ordinary.length - 2] ?? { sub: 'cust_checkout_7', card: 'pm_chk7', address: 'addr_chk7' };
  return {
    accounts: { a: { sub: a.sub, card: a.card, address: a.address }, b: { sub: b.sub, card: b.card, address: b.address } },
    // The checkout checks' variants: stocked for thousands of orders, so that a long exploration never runs one out.
    variants: data.checkoutVariants ? [data.checkoutVariants.beanie, data.checkoutVariants.tote] : ['var_0701', 'var_2501'],
  };
}

/** What one run shares between the target and the reference: guest sessions, shopper addresses, the keys' prefix. */
export interface RunContext {
  guestSessions: { a: string; b: string };
  shopperIps: { a: string; b: string };
  run: string;
}

export const newRunContext = (profile: Profile): RunContext => ({
  guestSessions: { a: newGuestSession(profile.secrets.guestSessionKey), b: newGuestSession(profile.secrets.guestSessionKey) },
  shopperIps: { a: freshShopperIp(), b: freshShopperIp() },
  run: randomUUID().slice(0, 8),
});

/** The rows a deployment created in this run, per account: path ids of later steps. */
interface Rows {
  order: Record<'a' | 'b', string[]>;
  address: Record<'a' | 'b', string[]>;
  conversation: Record<'a' | 'b', string[]>;
}

/** The fixture seed's product handle (profile `data.productHandle` names the target's). */
const DEFAULT_PRODUCT_HANDLE = 'waxed-canvas-field-jacket';
const noRows = (): Rows => ({ order: { a: [], b: [] }, address: { a: [], b: [] }, conversation: { a: [], b: [] } });

export class World {
  readonly http: ShopHttp;
  readonly mint: Minter;
  private target: Target | undefined;
  rows: Rows = noRows();
  /** The last ETag this deployment gave for each path a GET read: what a conditional GET sends back. */
  readonly etags = new Map<string, string>();
  /** Credentials minted in this sequence, per caller: a client keeps its token for its requests (and retries). */
  private readonly minted = new Map<string, Promise<Record<string, string>>>();
  /** Invited agents, assistants (DPoP) and their forged credentials: headers made per request (agent-callers.ts). */
  readonly agents: AgentCallers;

  constructor(
    readonly baseUrl: string,
    readonly profile: Profile,
    readonly fixture: Fixture,
    tls: TlsOptions = {},
  ) {
    this.http = new ShopHttp(baseUrl.replace(/\/+$/, ''), tls);
    this.mint = createMinter(profile);
    this.agents = new AgentCallers({
      profile,
      mint: this.mint,
      http: this.http,
      target: () => this.described(),
      subOf: (account) => fixture.accounts[account].sub,
    });
  }

  /** The deployment's description documents, read once (a missing or unusable one throws the clause's CheckFailure). */
  async described(): Promise<Target> {
    if (this.target) return this.target;
    const [general, assistant] = await Promise.all([this.http.get(DESCRIPTION.path), this.http.get(ASSISTANT_DESCRIPTION.path)]);
    this.target = new Target(
      { general: parseDocument(DESCRIPTION.path, general), assistant: parseDocument(ASSISTANT_DESCRIPTION.path, assistant) },
      this.profile.conventions ?? {},
    );
    return this.target;
  }

  /** The general and assistant documents as served (for the schema oracle). */
  documents(): { general: unknown; assistant: unknown } | undefined {
    return this.target?.documents;
  }

  /** A new sequence: rows of the previous one are forgotten (their ids stay valid, but no step names them). */
  reset(): void {
    this.minted.clear();
    this.agents.reset();
    this.rows = noRows();
    this.http.exchanges.length = 0;
  }

  /** The plan step as this deployment is sent it (NotDeclared: a route the spec leaves open that its documents lack). */
  async resolve(p: PlanStep, ctx: RunContext): Promise<Step> {
    const target = await this.described();
    const command = COMMANDS_BY_ID.get(p.op);
    if (!command) throw new TypeError(`no command ${p.op}`);
    const special = specialRowOf(p.op);
    if (special) return resolveSpecial(special, p, ctx.run, this.profile);
    const spec = { body: command.body, ref: command.ref };
    const variant = this.fixture.variants[p.variant];
    const own = p.caller.endsWith(':b') ? 'b' : 'a';
    const other = own === 'a' ? 'b' : 'a';
    let path: string;
    if (spec.ref === 'variant') path = target.path(p.op, variant);
    else if (spec.ref === 'order' || spec.ref === 'address') {
      const whose = p.mutation === 'foreign-id' ? other : own;
      const id = p.mutation === 'unknown-id' ? `${spec.ref}_${ctx.run}` : (this.rows[spec.ref][whose].at(-1) ?? `${spec.ref}_none`);
      path = target.path(p.op, id);
    } else if (spec.ref === 'product') path = target.path(p.op, this.profile.data?.productHandle ?? DEFAULT_PRODUCT_HANDLE);
    else if (spec.ref === 'conversation') path = target.path(p.op, this.rows.conversation[own].at(-1) ?? `conv_${ctx.run}`);
    else if (spec.ref === 'unknown') path = target.path(p.op, ...target.operation(p.op).pathParams.map((n) => `${n}_${ctx.run}`));
    else path = target.path(p.op);
    // The document's own query parameters at their defaults: an answer the query changes nothing of.
    const query = p.query ? target.operation(p.op).defaultQuery : undefined;
    if (query) path += `${path.includes('?') ? '&' : '?'}${new URLSearchParams(query).toString()}`;
    if (p.mutation === 'bad-path-escape') path += path.includes('?') ? '&q=%zz' : '?q=%zz';
    const op = target.operation(p.op);
    const headers: Step['headers'] = {};
    if (p.idempotencyKey) headers['idempotency-key'] = `${ctx.run}-${p.idempotencyKey}`;
    let body: Step['body'];
    if (!spec.body && op.requestBody && op.method !== 'GET' && op.method !== 'DELETE') {
      // A write the plan sends without a body (cancelOrder) whose target documents one: the body its documents describe
      // (a deployment may require a reason; the reference takes the bodiless request too).
      body = { json: target.body(p.op) };
    } else if (spec.body) {
      const roles: Record<string, unknown> =
        p.op === 'addCartItem'
          ? { variant, quantity: p.quantity }
          : p.op === 'updateCartItem'
            ? { quantity: p.quantity }
            : p.op === 'checkoutSavedCard'
              ? { 'payment-method': this.fixture.accounts[p.mutation === 'foreign-card' ? other : own].card }
              : {};
      // The acting account's own address wherever the body declares one (a checkout's shipping address, say).
      const json = target.body(p.op, roles, { address: this.fixture.accounts[own].address });
      body = mutateBody(json, p, target.operation(p.op).requestBody?.roles ?? {});
      if (p.altered && body && 'json' in body) body = { json: alterBody(body.json) };
    }
    const generatedFrom = p.mutation === 'body-shape' && p.bodyShape ? (body && 'json' in body ? body.json : {}) : undefined;
    if (p.bodyShape && generatedFrom !== undefined) body = applyBodyShape(generatedFrom, p.bodyShape);
    if (p.mutation === 'no-content-type' && body)
      body = { text: JSON.stringify('json' in body ? body.json : null), contentType: 'text/plain' };
    if (p.mutation === 'duplicate-header') headers['x-request-id'] = ['explore-1', 'explore-2'];
    if (p.mutation === 'conditional') headers['if-none-match'] = this.etags.get(path) ?? 'W/"explore-never-issued"';
    if (p.mutation === 'absent-header') headers[p.caller.startsWith('guest:') ? 'guest-session' : 'authorization'] = [];
    if (p.token) {
      // The caller's token shaped (tokens.ts), minted now so that the step records what is sent: its Authorization form,
      // or none where the shape moves the token elsewhere (a query parameter, a cookie).
      const kind = p.caller.split(':')[0] as TokenKind;
      const creds = await credentialsOfToken(kind, p.token, {
        profile: this.profile,
        mint: this.mint,
        sub: this.fixture.accounts[own].sub,
        guestHeaders: kind === 'guest' ? guestHeadersOf(await this.credentials(p.caller, ctx)) : undefined,
        operation: OPERATIONS_BY_ID.get(p.op),
      });
      Object.assign(headers, { authorization: [] }, creds.headers);
      if (creds.query) path += `${path.includes('?') ? '&' : '?'}${creds.query}`;
    }
    if (p.session) Object.assign(headers, await shapedSessionHeaders(p.session, own, ctx, this));
    if (p.context) {
      const header = target.header('invitedAgentContext');
      Object.assign(headers, await shapedContextHeaders(p.context, own, this, header, this.agents.lastContext(own)));
    }
    const method = p.mutation === 'wrong-method' ? 'PUT' : op.method;
    return {
      operationId: p.op,
      method,
      path,
      caller: p.caller,
      headers,
      ...(body ? { body } : {}),
      ...(p.mutation ? { mutation: p.mutation } : {}),
      ...(generatedFrom !== undefined ? { generatedFrom } : {}),
      ...(p.token ? { token: describeToken(p.token) } : {}),
      ...(p.proof ? { proof: { shape: p.proof, described: describeProof(p.proof) } } : {}),
      ...(p.session ? { session: describeSession(p.session) } : {}),
      ...(p.context ? { context: describeContext(p.context) } : {}),
    };
  }

  /** The caller's credentials in this sequence: minted at its first request (a replay never reuses a run's tokens). */
  credentials(caller: string, ctx: RunContext): Promise<Record<string, string>> {
    let c = this.minted.get(caller);
    if (!c) this.minted.set(caller, (c = mintCredentials(caller, ctx, this)));
    return c;
  }

  /**
   * Sends one step through the suite's one transport; a step's own headers win over the credentials', `[]` removes one.
   * An agent's credentials are made for this very request (a DPoP proof names its method and URL); a 401 use_dpop_nonce
   * is answered as a client does, once, with a new proof carrying the nonce (unless the step's proof is pinned to one).
   */
  async send(step: Step, ctx: RunContext): Promise<Answer> {
    if (step.caller.startsWith('secret:')) {
      const row = specialRowOf(step.operationId);
      return this.sendWith(step, row ? routeCredential(row, step, this.profile, step.caller === 'secret:own') : {});
    }
    if (!isAgentCaller(step.caller)) return this.sendWith(step, await this.credentials(step.caller, ctx));
    // A shaped context (contexts.ts) carries every credential header of its own: the agent's are not made for it.
    if (step.context) return this.sendWith(step, {});
    if (step.proof) {
      // A shaped proof (proofs.ts): sent once as shaped, the shape as it went out kept on the step for its judge.
      const shaped = await this.agents.shaped(step.caller, step.method, step.path, step.proof.shape);
      step.proof.sent = shaped.sent;
      step.proof.nonceAsked = shaped.nonceAsked;
      const answer = await this.sendWith(step, shaped.headers);
      await this.agents.answered(step.caller, answer);
      return answer;
    }
    const first = await this.agents.headers(step.caller, step.method, step.path);
    const answer = await this.sendWith(step, first.headers);
    await this.agents.answered(step.caller, answer);
    if (!first.retryOnNonce || !AgentCallers.asksForNonce(answer)) return answer;
    const retried = await this.sendWith(step, (await this.agents.headers(step.caller, step.method, step.path)).headers);
    await this.agents.answered(step.caller, retried);
    return retried;
  }

  private async sendWith(step: Step, credentials: Record<string, string | string[]>): Promise<Answer> {
    const fields: Record<string, string | undefined> = {};
    const raw: [string, string][] = [];
    for (const [name, value] of Object.entries({ ...credentials, ...step.headers })) {
      if (Array.isArray(value)) {
        fields[name] = undefined;
        for (const v of value) raw.push([name, v]);
      } else fields[name] = value;
    }
    const b = step.body;
    try {
      const res = await this.http.request(step.method, step.path, {
        headers: { ...(b && 'text' in b ? { 'content-type': b.contentType ?? 'application/json' } : {}), ...fields },
        rawHeaders: raw,
        ...(b ? ('json' in b ? { json: b.json } : { body: b.text }) : {}),
      });
      return { status: res.status, headers: Object.fromEntries(res.headers.entries()), text: res.text, json: res.body };
    } catch (err) {
      // No answer (the connection refused, closed before the end of the answer, or no answer in time): an answer of
      // status 0 that the model reports (model-judges.ts), never a crash of the search.
      return { status: 0, headers: {}, text: err instanceof Error ? err.message : String(err) };
    }
  }

  /** A GET of a Location the deployment gave, as the same caller. */
  async follow(location: string, caller: string, ctx: RunContext): Promise<Answer> {
    const base = new URL(`${this.baseUrl}/`);
    const url = new URL(location, base);
    // A path under the base URL's own path (a deployment behind a prefix) is sent relative to the base URL.
    const prefix = base.pathname.replace(/\/$/, '');
    const path =
      url.origin === base.origin && url.pathname.startsWith(`${prefix}/`) ? `${url.pathname.slice(prefix.length)}${url.search}` : url.href;
    return this.send({ operationId: 'raw', method: 'GET', path, caller, headers: {} }, ctx);
  }
}
