// A conforming alternate whose credential formats differ from the reference's where no description document can say so:
// its identity-provider proxy reports name the account and the session elsewhere, its assistant browser sessions carry
// another prefix, and its invited-agent contexts another header type and the agent id nested. Its profile says so in
// `conventions` (docs/profile.md). The proxy translates each artifact to the reference's, verifying MACs with the
// profile's keys first, and breaks anything in the reference's own format, so that a pass proves the suite used the
// profile's conventions.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Profile } from '../../contract/profile.js';
import { fixtureProfile } from './reference.js';
import { headerOf, withHeader, type ProxyRules } from './mutating-proxy.js';

type Json = Record<string, any>;

export const CREDENTIAL_CONVENTIONS: NonNullable<Profile['conventions']> = {
  credentials: {
    invitedAgentContext: { typ: 'agent-context+jwt', claims: { agent_id: '/agent/id' } },
    browserSession: { prefix: 'web2' },
  },
  proxyPayloads: {
    agentConnected: { subject: '/account/id', session_id: '/session' },
    sessionSignedOut: { session_id: '/session' },
    agentAuthorization: { subject: '/account/id' },
  },
};

const KEY = fixtureProfile.secrets.webSessionContextKey;
const mac = (signed: string) => createHmac('sha256', KEY).update(signed, 'utf8').digest('base64url');
const sameMac = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
const b64json = (part: string): Json | undefined => {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Json;
  } catch {
    return undefined;
  }
};
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
/** What the reference refuses, for an artifact in a format this deployment does not take. */
const BROKEN = 'not.this-deployments.format';

/** `web2.<sid>.<mac>` → the reference's `asb1.<sid>.<mac>`; anything else (asb1 included) is refused. */
function browserSession(value: string): string {
  const m = /^web2\.([^.]+)\.([\w-]+)$/.exec(value);
  if (!m || !sameMac(m[2]!, mac(`web2.${m[1]}`))) return BROKEN;
  return `asb1.${m[1]}.${mac(`asb1.${m[1]}`)}`;
}

/** A context of typ agent-context+jwt, MAC valid, agent id at /agent/id → the reference's; anything else is left to fail. */
function invitedAgentContext(value: string): string {
  const [h, p, s] = value.split('.');
  if (h === undefined || p === undefined || s === undefined) return value;
  const header = b64json(h);
  const payload = b64json(p);
  if (header?.alg !== 'HS256' || !payload || !sameMac(s, mac(`${h}.${p}`))) return value;
  if (header.typ !== 'agent-context+jwt') return BROKEN;
  const { agent, ...rest } = payload;
  const claims = typeof agent === 'object' && agent !== null && 'id' in agent ? { ...rest, agent_id: (agent as Json).id } : rest;
  const signed = `${b64({ ...header, typ: 'invited-agent+jwt' })}.${b64(claims)}`;
  return `${signed}.${mac(signed)}`;
}

/** The alternate's report → the reference's, or a refused body when it is in the reference's own shape. */
function report(path: string, body: Json): Json {
  const refused = { ...body, not_this_deployments_shape: true };
  const { account, session, ...rest } = body;
  if (path === '/internal/assistant/agents/connected') {
    if ('subject' in body || 'session_id' in body) return refused;
    return {
      ...rest,
      ...(account !== undefined ? { subject: account?.id } : {}),
      ...(session !== undefined ? { session_id: session } : {}),
    };
  }
  if (path === '/internal/assistant/sessions/signed-out') {
    if ('session_id' in body) return refused;
    return { ...rest, ...(account !== undefined ? { account } : {}), ...(session !== undefined ? { session_id: session } : {}) };
  }
  if (path === '/internal/agent-authorization') {
    if ('subject' in body) return refused;
    return { ...rest, ...(session !== undefined ? { session } : {}), ...(account !== undefined ? { subject: account?.id } : {}) };
  }
  return body;
}

export const credentialFormats: { name: string; choice: string; rules: ProxyRules } = {
  name: 'other credential formats',
  choice:
    'proxy reports with the account at /account/id and the session at /session, browser sessions web2.<sid>.<mac>, invited-agent contexts of typ agent-context+jwt with the agent id at /agent/id (the profile conventions say so)',
  rules: {
    request(req) {
      let headers = req.headers;
      const session = headerOf(headers, 'Assistant-Browser-Session');
      if (session !== undefined) headers = withHeader(headers, 'Assistant-Browser-Session', browserSession(session));
      const context = headerOf(headers, 'Invited-Agent-Context');
      if (context !== undefined) headers = withHeader(headers, 'Invited-Agent-Context', invitedAgentContext(context));
      return { ...req, headers };
    },
    requestBody(req, body) {
      const path = req.path.split('?')[0]!;
      if (req.method !== 'POST' || !path.startsWith('/internal/') || path.startsWith('/internal/account/')) return body;
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        return body;
      }
      if (typeof json !== 'object' || json === null || Array.isArray(json)) return body;
      return JSON.stringify(report(path, json as Json));
    },
  },
};
