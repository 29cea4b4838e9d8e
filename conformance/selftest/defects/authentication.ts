// Defects of part 5, Authentication: leniencies (the proxy repairs what the server should have refused) and headers.
import type { Defect } from '../defect.js';

export const AUTHENTICATION_DEFECTS: readonly Defect[] = [
  { id: 'accepts-other-audience', clause: 'AUTH-TOKEN-4', breaks: 'a token for another audience is accepted', repair: 'token-other-audience' },
  { id: 'accepts-expired-token', clause: 'AUTH-TOKEN-6', breaks: 'an expired token is accepted', repair: 'expired-token' },
  { id: 'no-request-id-on-success', clause: 'AUTH-ORDER-2', breaks: 'successful answers carry no X-Request-Id', when: { status: 'success' }, response: { drop: ['X-Request-Id'] } },
  { id: 'traceparent-dropped', clause: 'AUTH-ORDER-3', breaks: 'a valid traceparent is not echoed', response: { drop: ['traceparent'] } },
  { id: 'dpop-nonce-missing-on-success', clause: 'AUTH-ORDER-4', breaks: 'a DPoP request gets no DPoP-Nonce on success', when: { requestHeader: 'DPoP', status: 'success' }, response: { drop: ['DPoP-Nonce'] } },
  { id: 'forged-guest-session-accepted', clause: 'AUTH-GUEST-5', breaks: 'a forged Guest-Session is accepted', repair: 'forged-guest-session' },
];
