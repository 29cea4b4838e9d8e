// Caller classification [AUTH-TOKEN-8] (spec, Authentication > Caller kinds): the caller kind follows from
// `client_id`, `sub` and `act`, checked against the configured clients; every other combination is refused. Pure.
// It does not look at the account (that is the actor stage) nor at the operation (that is the guard).
import type { CallerKind } from '../../../contract/callers.js';
import { ProblemError } from '../problem.js';
import { PERSONAL_AGENT_ACTOR } from './challenge.js';

export interface Clients {
  websiteClientId: string;
  storefrontClientId: string;
  backofficeClientId: string;
  agentProtocolClientId: string;
  webAgentForwarderClientId: string;
  mcpAgentForwarderClientId: string;
  personalAgentProxyClientId: string;
  apiAudience: string;
  agentAudience: string;
}

export interface TokenFacts {
  clientId: string;
  sub: string;
  act: unknown;
  aud: string[];
}

/** The original artifacts a forwarder may carry; exactly one is needed. */
export interface ForwardedArtifacts {
  invitedAgentContext: boolean;
  assistantSubject: boolean;
}

export interface Classification {
  kind: CallerKind;
  clientId: string;
  /** Account sub for user tokens; `<client>@clients` for machine tokens. */
  sub: string;
  /** Actor subjects from outermost to innermost (delegated callers). */
  actChain: string[];
  channel?: 'mcp' | 'openapi';
  /** Set for forwarded callers: which forwarder brought them. */
  forwarder?: 'web' | 'mcp';
}

const refuse = (detail: string) => new ProblemError('invalid_token', { detail, challenge: { kind: 'chosen', error: 'invalid_token' } });

/** Subjects of an RFC 8693 `act` chain, outermost first; undefined when the claim is not a well-formed chain. */
export function actChain(act: unknown): string[] | undefined {
  const chain: string[] = [];
  let cur = act;
  while (cur !== undefined) {
    if (!cur || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    const { sub, act: inner } = cur as { sub?: unknown; act?: unknown };
    if (typeof sub !== 'string' || sub.length === 0) return undefined;
    chain.push(sub);
    if (chain.length > 8) return undefined;
    cur = inner;
  }
  return chain;
}

export function classifyCaller(t: TokenFacts, clients: Clients, artifacts: ForwardedArtifacts): Classification {
  const machine = t.sub === `${t.clientId}@clients`;
  const looksMachine = t.sub.endsWith('@clients');
  // [AUTH-TOKEN-8] a combination that matches no caller kind is refused, even validly signed.
  if (looksMachine && !machine) throw refuse('The machine subject does not match client_id.');
  const chain = t.act === undefined ? [] : actChain(t.act);
  if (chain === undefined) throw refuse('The act claim is not a well-formed actor chain.');
  const base = { clientId: t.clientId, sub: t.sub, actChain: chain };
  const hasApiAudience = t.aud.includes(clients.apiAudience);

  // [AUTH-KIND-1] every accepted token is one of the six caller kinds; anything else is refused below.
  switch (t.clientId) {
    // [AUTH-KIND-2] a user token of the website client, no act, for the API audience: a customer.
    case clients.websiteClientId:
      // [AUTH-TOKEN-11] a machine token of a client with no caller kind is refused.
      if (machine) throw new ProblemError('caller_not_allowed', { detail: 'A machine token of the website client has no caller kind.' });
      // [AUTH-TOKEN-12] a website user token with `act` is an invited-agent login, never a customer.
      if (chain.length > 0) throw refuse('A website token carrying act is not a customer token.');
      // [AUTH-CRED-2] its own token for the API audience; [AUTH-CUST-3] [AUTH-CUST-4] no sid, epoch or sign-in record asked for.
      if (!hasApiAudience) throw refuse('A customer token must be issued for the API audience.');
      return { kind: 'customer', ...base };

    // [AUTH-KIND-5] a user token whose outermost act.sub is the agent-protocol client: delegated.
    case clients.agentProtocolClientId:
      if (machine)
        throw new ProblemError('caller_not_allowed', { detail: 'A machine token of the agent-protocol client has no caller kind.' });
      // [AUTH-CRED-3] an on-behalf-of token: the agent client acts for the user.
      if (chain.length === 0) throw refuse('A delegated token needs an act chain.');
      // [AUTH-TOKEN-10] an act chain whose outermost actor is not the agent client is refused.
      if (chain[0] !== clients.agentProtocolClientId) throw refuse('The outermost actor is not the agent-protocol client.');
      return { kind: 'delegated', ...base, channel: t.aud.includes(clients.agentAudience) ? 'mcp' : 'openapi' };

    // [AUTH-KIND-9] the storefront machine token: a guest (its Guest-Session is the admission stage's).
    case clients.storefrontClientId:
      if (!machine || chain.length > 0) throw refuse('The storefront client only presents machine tokens.');
      if (!hasApiAudience) throw refuse('A storefront token must be issued for the API audience.');
      return { kind: 'guest', ...base };

    // [AUTH-KIND-11] the backoffice machine token: an operator (its Operator header is the admission stage's).
    case clients.backofficeClientId:
      if (!machine || chain.length > 0) throw refuse('The backoffice client only presents machine tokens.');
      if (!hasApiAudience) throw refuse('A backoffice token must be issued for the API audience.');
      return { kind: 'operator', ...base };

    case clients.webAgentForwarderClientId:
    case clients.mcpAgentForwarderClientId: {
      if (!machine || chain.length > 0) throw refuse('A forwarder only presents machine tokens.');
      const web = t.clientId === clients.webAgentForwarderClientId;
      const count = Number(artifacts.invitedAgentContext) + Number(artifacts.assistantSubject);
      // [AUTH-ASST-17] [AUTH-ASST-18] forwarders only forward agents and need exactly one original artifact.
      if (count !== 1) throw refuse('A forwarder token needs exactly one original agent artifact.');
      if (artifacts.invitedAgentContext) {
        // [AUTH-CUST-9] an invited-agent context travels only with the web-agent-forwarder machine token.
        if (!web) throw refuse('Invited-agent contexts are accepted only with the web-agent-forwarder token.');
        return { kind: 'invited-agent', ...base, forwarder: 'web' };
      }
      return { kind: 'assistant', ...base, forwarder: web ? 'web' : 'mcp' };
    }

    case clients.personalAgentProxyClientId:
      if (machine) throw new ProblemError('caller_not_allowed', { detail: 'A machine token of the proxy client has no caller kind.' });
      // [AUTH-ASST-15] [AUTH-KIND-12] [AUTH-CRED-10] direct assistant tokens: single-level personal_agent token exchanges of
      // the proxy client.
      if (chain.length !== 1 || chain[0] !== PERSONAL_AGENT_ACTOR)
        throw refuse('A proxy token must be a single-level personal_agent exchange.');
      return { kind: 'assistant', ...base };

    default:
      // [AUTH-TOKEN-9] a validly signed token of an unknown client_id is refused.
      throw refuse('The token was issued to an unknown client.');
  }
}
