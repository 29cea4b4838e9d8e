// What a shaped token's client_id, sub and act make of it (spec, Caller kinds; Authentication > Token verification 3-4),
// symbolically: the builder (tokens-build.ts) writes these symbols as the profile's values, and the judge
// (tokens-expect.ts) classifies them by the spec's table, so that a combination of variations (another client and a
// machine subject, say) is judged as the token it becomes, not as each variation alone. Pure.
import type { Profile } from '../../contract/profile.js';
import type { TokenKind, TokenShape } from './tokens-shape.js';

/** The configured clients a shaped token may name (profile `clients`). */
export type ClientRole = 'website' | 'storefront' | 'backoffice' | 'agentProtocol' | 'webAgentForwarder';

export type ClientSymbol = ClientRole | 'unknown' | 'absent' | 'wrong-type';
/** A user's subject, `<client_id>@clients` of a configured client, or no usable subject. */
export type SubSymbol = 'user' | { machineOf: ClientRole } | 'absent' | 'empty' | 'wrong-type';
/** No act; an RFC 8693 chain named by its outermost actor; or a claim that is no chain at all. */
export type ActSymbol = 'absent' | 'malformed' | { outer: ClientRole | 'other' | 'personal_agent' };

interface Claims {
  client: ClientSymbol;
  sub: SubSymbol;
  act: ActSymbol;
}

/** Each kind's token as minted (docs/tokens.md, "Per caller kind"). */
const MINTED: Readonly<Record<TokenKind, Claims>> = {
  customer: { client: 'website', sub: 'user', act: 'absent' },
  delegated: { client: 'agentProtocol', sub: 'user', act: { outer: 'agentProtocol' } },
  guest: { client: 'storefront', sub: { machineOf: 'storefront' }, act: 'absent' },
  operator: { client: 'backoffice', sub: { machineOf: 'backoffice' }, act: 'absent' },
};

/**
 * `client_id: other-known`: a configured client that, with the kind's own subject, makes no caller kind (a user subject on
 * the storefront client; a delegated token's act on the website client; a machine subject of another client).
 */
const OTHER_KNOWN_CLIENT: Readonly<Record<TokenKind, ClientRole>> = {
  customer: 'storefront',
  delegated: 'website',
  guest: 'backoffice',
  operator: 'storefront',
};

/** `sub: machine-other` names a client that no client_id variation names, so that the two never meet as one machine token. */
const OTHER_MACHINE: ClientRole = 'webAgentForwarder';

/** The minted client of a kind. */
export const mintedClient = (kind: TokenKind): ClientRole => MINTED[kind].client as ClientRole;

/** The client_id, sub and act a shape gives a kind's token. */
export function claimsOf(kind: TokenKind, shape: TokenShape): Claims {
  const m = MINTED[kind];
  const client: ClientSymbol =
    shape.client_id === undefined ? m.client : shape.client_id === 'other-known' ? OTHER_KNOWN_CLIENT[kind] : shape.client_id;
  const sub: SubSymbol =
    shape.sub === undefined
      ? m.sub
      : shape.sub === 'machine'
        ? { machineOf: mintedClient(kind) }
        : shape.sub === 'machine-other'
          ? { machineOf: OTHER_MACHINE }
          : shape.sub;
  return { client, sub, act: actOf(m.act, shape.act) };
}

function actOf(minted: ActSymbol, v: TokenShape['act']): ActSymbol {
  switch (v) {
    case undefined:
      return minted;
    case 'absent':
      return 'absent';
    case 'malformed':
    case 'sub-wrong-type':
      return 'malformed';
    case 'outer-other':
      return { outer: 'other' };
    case 'assistant':
      return { outer: 'personal_agent' };
    case 'outer-website':
      return { outer: 'website' };
    case 'deeper':
    case 'agent':
      return { outer: 'agentProtocol' };
  }
}

/** The profile's client id of a role. */
export const clientIdOf = (profile: Profile, role: ClientRole): string => profile.clients[role];

/** A recognised kind, a combination the spec refuses (its clauses), or one it reads two ways (why). */
export type Classified = { kind: TokenKind } | { refused: string[] } | { unsure: string };

const NO_ACT_ON_MACHINES =
  "the guest and operator rows of Caller kinds name no act, and Token verification 3 refuses 'an act chain whose outermost " +
  "actor is not the agent client': read as an example among user tokens, a machine token with act stays its client's kind";

/**
 * The spec's Caller kinds table on the symbols. Every row is checked against configured client ids; a combination no
 * row matches is refused with 401 or 403 (AUTH-TOKEN-8). Guest and operator rows need their header besides (a
 * Guest-Session, optional on reads; an Operator attribution): the caller sends them, so the token alone decides here.
 */
export function classify(c: Claims): Classified {
  // AUTH-TOKEN-7: every access token carries client_id; one that is no string names no configured client.
  if (c.client === 'absent' || c.client === 'wrong-type') return { refused: ['AUTH-TOKEN-7', 'AUTH-TOKEN-8'] };
  // AUTH-TOKEN-9: an unknown client_id.
  if (c.client === 'unknown') return { refused: ['AUTH-TOKEN-9', 'AUTH-TOKEN-8'] };
  // No subject (RFC 9068 §2.2 requires sub): no row matches.
  if (c.sub === 'absent' || c.sub === 'empty' || c.sub === 'wrong-type') return { refused: ['AUTH-TOKEN-8'] };
  if (c.act === 'malformed') return { refused: ['AUTH-TOKEN-10', 'AUTH-TOKEN-8'] };
  const machineOf = typeof c.sub === 'object' ? c.sub.machineOf : undefined;
  const machine = machineOf !== undefined;
  const ownMachine = machineOf === c.client;
  const outer = c.act === 'absent' ? undefined : c.act.outer;
  switch (c.client) {
    case 'website':
      // AUTH-TOKEN-11: a machine token of a client with no caller kind.
      if (ownMachine) return { refused: ['AUTH-TOKEN-11', 'AUTH-TOKEN-8'] };
      if (machine) return { refused: ['AUTH-TOKEN-8'] };
      // AUTH-TOKEN-12: a website user token carrying act is an invited-agent login, never a customer.
      if (outer !== undefined) return { refused: ['AUTH-TOKEN-12', 'AUTH-TOKEN-8'] };
      // AUTH-KIND-2.
      return { kind: 'customer' };
    case 'agentProtocol':
      if (ownMachine) return { refused: ['AUTH-TOKEN-11', 'AUTH-TOKEN-8'] };
      if (machine || outer === undefined) return { refused: ['AUTH-TOKEN-8'] };
      // AUTH-TOKEN-10: the outermost act.sub must be the agent-protocol client; AUTH-KIND-5.
      return outer === 'agentProtocol' ? { kind: 'delegated' } : { refused: ['AUTH-TOKEN-10', 'AUTH-TOKEN-8'] };
    case 'storefront':
    case 'backoffice':
      // AUTH-KIND-9, AUTH-KIND-11: sub equals <client_id>@clients; a user subject or another client's is no kind.
      if (!ownMachine) return { refused: ['AUTH-TOKEN-8'] };
      if (outer !== undefined) return { unsure: NO_ACT_ON_MACHINES };
      return { kind: c.client === 'storefront' ? 'guest' : 'operator' };
    case 'webAgentForwarder':
      // Not a client_id any variation names; a forwarder's token without an artifact is refused (AUTH-ASST-17).
      return { refused: ['AUTH-ASST-17', 'AUTH-TOKEN-8'] };
  }
}
