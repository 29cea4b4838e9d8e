// Spec part 5, Authentication > Challenge scheme (chosen before verification): "DPoP when the path is a conversation
// path ... Bearer otherwise", and Errors: no token on /v1 is answered with a Bearer and a DPoP challenge. The path is
// the one the server routes: a spelling it serves the route at is that route's path for the challenge too. Spellings an
// HTTP server reads as the same target: a percent-encoded unreserved character (RFC 3986 6.2.2.2), dot segments
// (6.2.2.3) and the absolute form of the request-target (RFC 9112 3.2.2: a server MUST accept it). A spelling the
// server does not route (404, 400) is not judged; a 401 to one it does must carry the challenge its path earns.
import { check, test } from '../engine/runner/check.js';
import { judgeCases } from '../engine/runner/cases.js';
import { expectChallenge, inCase } from '../lib/assert.js';
import { CONVERSATIONS_PATH } from '../../contract/routes.js';
import { expectDpopChallengesOnly } from '../lib/expect/refusals.js';

/** `/v1/cart`, the conversation collection, and spellings of each the server may route as them. */
function spellings(origin: string): { path: string; conversation: boolean; how: string }[] {
  const conversations = CONVERSATIONS_PATH;
  const encodeFirst = (p: string, letter: string) => p.replace(letter, `%${letter.charCodeAt(0).toString(16).toUpperCase()}`);
  return [
    { path: '/v1/%63art', conversation: false, how: 'a percent-encoded letter' },
    { path: '/%761/cart', conversation: false, how: 'a percent-encoded letter of the prefix' },
    { path: `${origin}/v1/cart`, conversation: false, how: 'the absolute form' },
    { path: '/v1/x/../cart', conversation: false, how: 'a dot segment' },
    { path: encodeFirst(conversations, 'c'), conversation: true, how: 'a percent-encoded letter' },
    { path: conversations.replace('/assistant/', '/assistant/./'), conversation: true, how: 'a dot segment' },
    { path: conversations.replace('/assistant/', '/assistant/x/../'), conversation: true, how: 'a dot segment' },
    { path: `${origin}${conversations}`, conversation: true, how: 'the absolute form' },
  ];
}

test(
  ...check(
    {
      id: 'authentication.scheme.path-spellings',
      title:
        'a request without a token at another spelling of /v1/cart or of the conversation path (percent-encoded letters, absolute form) gets the challenge of the path it is routed to',
      clauses: ['AUTH-SCHEME-1', 'ERR-TABLE-1'],
    },
    async (shop) => {
      const origin = new URL(shop.params.baseUrl).origin + new URL(shop.params.baseUrl).pathname.replace(/\/$/, '');
      // Refused reads without a token, one case per spelling.
      await judgeCases(spellings(origin), async (c) => {
        const res = await shop.http.get(c.path, { asWritten: true });
        if (res.status !== 401) return;
        inCase(`GET ${c.path} (${c.how}) without a token`, () => {
          if (c.conversation) return expectDpopChallengesOnly(res, { clause: 'AUTH-SCHEME-1' });
          expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token', clause: 'ERR-TABLE-1' });
          expectChallenge(res, { scheme: 'DPoP', error: 'invalid_token', clause: 'ERR-TABLE-1' });
        });
      });
    },
  ),
);
