// Defects of part 7, Errors: the problem format's headers and the error table's rows.
import type { Defect } from '../defect.js';

export const ERROR_DEFECTS: readonly Defect[] = [
  { id: 'error-media-type-json', clause: 'ERR-PROBLEM-4', breaks: 'errors carry Content-Type: application/json', when: { status: 'error' }, response: { set: { 'Content-Type': 'application/json' } } },
  { id: 'error-cacheable', clause: 'ERR-PROBLEM-5', breaks: 'errors carry Cache-Control: no-cache instead of no-store', when: { status: 'error' }, response: { set: { 'Cache-Control': 'no-cache' } } },
  { id: 'no-request-id', clause: 'ERR-PROBLEM-7', breaks: 'no X-Request-Id on any response', response: { drop: ['X-Request-Id'] } },
  { id: 'challenge-on-domain-error', clause: 'ERR-PROBLEM-8', breaks: 'caller_not_allowed carries a WWW-Authenticate challenge', when: { error: 'caller_not_allowed' }, response: { set: { 'WWW-Authenticate': 'Bearer error="insufficient_scope"' } } },
  { id: 'unmatched-route-html', clause: 'ERR-PROBLEM-10', breaks: 'an unmatched route is answered with an HTML page', when: { path: '^/no-such-route', status: 'error' }, response: { set: { 'Content-Type': 'text/html' } } },
  { id: 'no-token-single-challenge', clause: 'ERR-TABLE-1', breaks: 'no token on /v1 gets only the Bearer challenge', when: { path: '^/v1/', error: 'invalid_token' }, response: { set: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } } },
  { id: 'ended-account-no-challenge', clause: 'ERR-TABLE-5', breaks: 'account_access_ended carries no challenge', when: { error: 'account_access_ended' }, response: { drop: ['WWW-Authenticate'] } },
  { id: 'guest-session-required-401', clause: 'ERR-TABLE-7', breaks: 'a guest write without a session is 401', when: { error: 'guest_session_required' }, response: { status: 401, body: { set: { status: 401, title: 'Unauthorized' } } } },
  { id: 'caller-not-allowed-401', clause: 'ERR-TABLE-8', breaks: 'a wrong caller kind is 401', when: { error: 'caller_not_allowed' }, response: { status: 401, body: { set: { status: 401, title: 'Unauthorized' } } } },
  { id: 'insufficient-scope-401', clause: 'ERR-TABLE-9', breaks: 'a missing scope is 401', when: { error: 'insufficient_scope' }, response: { status: 401, body: { set: { status: 401, title: 'Unauthorized' } } } },
  { id: 'sign-in-required-no-challenge', clause: 'ERR-TABLE-10', breaks: 'sign_in_required carries no challenge', when: { error: 'sign_in_required' }, response: { drop: ['WWW-Authenticate'] } },
  { id: 'validation-without-issues', clause: 'ERR-TABLE-11', breaks: 'invalid_request carries no `issues`', when: { error: 'invalid_request' }, response: { body: { drop: ['issues'] } } },
  { id: 'rate-limited-without-retry-after', clause: 'ERR-TABLE-12', breaks: '429 rate_limited carries no Retry-After', when: { error: 'rate_limited' }, response: { drop: ['Retry-After'] } },
  { id: 'outage-retry-after-60', clause: 'ERR-TABLE-13', breaks: '503 unavailable says Retry-After: 60', when: { error: 'unavailable' }, response: { set: { 'Retry-After': '60' } } },
  { id: 'cart-empty-400', clause: 'ERR-TABLE-14', breaks: 'checkout of an empty cart is 400', when: { error: 'cart_empty' }, response: { status: 400, body: { set: { status: 400, title: 'Bad Request' } } } },
];
