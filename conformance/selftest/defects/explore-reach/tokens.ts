// Explore-reach defects, family "token shapes": an access token the spec (and RFC 9068 for `at+jwt`) says to reject,
// accepted, each for one shape of one claim. Leniency defects: the request is repaired (re-signed with the profile's key
// through ctx.mint) before it goes upstream, so the server behind answers as if the token were good. Written from the
// spec and the contract alone (blind).
import { audienceOf } from '../../../lib/mint.js';
import { repairBearer, tokenClaims, withHeader, type Claims } from '../helpers.js';
import { lenient, type Defect } from '../types.js';
import { kindOf, scopesOf, subOf } from '../blind/shared.js';

const trimSlashes = (s: string) => s.replace(/\/+$/, '');

/** The `sub` of each actor of a nested `act` claim, outermost first. */
function actChain(act: unknown): string[] {
  const out: string[] = [];
  for (let a = act; a !== null && typeof a === 'object' && out.length < 16; a = (a as Claims).act) {
    const sub = (a as Claims).sub;
    out.push(typeof sub === 'string' ? sub : '');
  }
  return out;
}

export const REACH_TOKENS_DEFECTS: readonly Defect[] = [
  // "The service verifies ... audience". Broken for an `aud` array: the check compares `aud` as a string and skips an
  // array, so a token whose `aud` is a list naming only another audience is accepted.
  lenient(
    'reach.tokens.audience-array-unchecked',
    'AUTH-TOKEN-4',
    'a token whose aud is an array naming only a foreign audience is accepted',
    (ctx) => ({
      async request(r) {
        const kind = kindOf(ctx.profile, r);
        if (kind === 'unknown') return r;
        const ours = [ctx.profile.audiences.api, ctx.profile.audiences.agent];
        // The repaired token names the audience this caller kind's tokens normally carry.
        const audience = ctx.profile.audiences[audienceOf(ctx.profile, kind)];
        return repairBearer((_h, claims) => {
          const aud = claims.aud;
          if (!Array.isArray(aud) || aud.length === 0 || aud.some((x) => ours.includes(x as string))) return false;
          claims.aud = audience;
          return true;
        })(ctx).request(r);
      },
    }),
  ),
  // "The service verifies issuer". Broken: the issuer is compared after trimming trailing slashes (a URL normalisation),
  // so a token whose `iss` differs from the configured issuer by a trailing `/` only is accepted.
  lenient(
    'reach.tokens.issuer-trailing-slash-normalised',
    'AUTH-TOKEN-2',
    'a token whose iss differs from the issuer only by a trailing slash is accepted',
    (ctx) =>
      repairBearer((_h, claims) => {
        const iss = claims.iss;
        const issuer = ctx.profile.issuer;
        if (typeof iss !== 'string' || iss === issuer || trimSlashes(iss) !== trimSlashes(issuer)) return false;
        claims.iss = issuer;
        return true;
      })(ctx),
  ),
  // Token verification 3: "Any other combination is rejected ... (... an `act` chain whose outermost actor is not the
  // agent client ...)". Broken: the chain is walked to its innermost actor and that one is compared with the agent
  // client, so a token of the agent-protocol client whose outermost actor is another party is taken as delegated.
  lenient(
    'reach.tokens.act-chain-innermost-checked',
    'AUTH-TOKEN-10',
    'a token whose act chain has the agent client innermost but another actor outermost is accepted as delegated',
    (ctx) => ({
      async request(r) {
        const claims = tokenClaims(r);
        const sub = subOf(r);
        const agent = ctx.profile.clients.agentProtocol;
        if (!claims || !sub || claims.client_id !== agent) return r;
        const chain = actChain(claims.act);
        if (chain.length < 2 || chain[0] === agent || chain[chain.length - 1] !== agent) return r;
        const channel = claims.aud === ctx.profile.audiences.api ? 'openapi' : 'mcp';
        const token = await ctx.mint.delegated({ sub, channel, scope: scopesOf(r) });
        return { ...r, headers: withHeader(r.headers, 'Authorization', `Bearer ${token}`) };
      },
    }),
  ),
];
