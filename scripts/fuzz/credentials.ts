// Credentials of every caller kind for the fuzzer, valid and invalid: minted once against the fixture profile (tokens live
// an hour), plus the assistant's DPoP key, whose proofs are made per request with the last nonce the server sent.
import { randomUUID } from 'node:crypto';
import { createMinter } from '../../conformance/lib/mint.js';
import { createDpopKey, dpopProof, type DpopKey } from '../../conformance/lib/dpop.js';
import { newGuestSession, forgeGuestSession } from '../../conformance/lib/guest-session.js';
import { signPayload } from '../../conformance/lib/stripe-signature.js';
import type { Profile } from '../../contract/profile.js';
import type { Rng } from './rng.js';

export type HeaderList = [string, string][];

export interface Credentials {
  /** Headers of one credential choice for a request to `method` `url` (absolute, for DPoP proofs). */
  pick(rng: Rng, method: string, url: string, body: Buffer): Promise<{ kind: string; headers: HeaderList }>;
  /** Remember the nonce of an answer, for the next proof. */
  nonce(value: string | undefined): void;
  /** A valid Assistant-Subject value (the assistant's token), for the duplicate-header shape. */
  assistantSubject: string;
}

export async function createCredentials(profile: Profile, registerSession: (sid: string) => Promise<void>): Promise<Credentials> {
  const m = createMinter(profile);
  const life = { expiresIn: 3600 };
  const sub = 'cust_ada';
  const key: DpopKey = await createDpopKey();
  const sid = `sess_fuzz_${randomUUID()}`;
  await registerSession(sid);
  const web = await m.invitedAgentForwarder(life);
  const s = profile.secrets;
  const fixed: Record<string, HeaderList> = {
    none: [],
    customer: [['Authorization', `Bearer ${await m.customer({ sub, ...life })}`]],
    'customer-expired': [['Authorization', `Bearer ${await m.customer({ sub, expiresIn: -5 })}`]],
    'customer-future-iat': [
      ['Authorization', `Bearer ${await m.customer({ sub, claims: { iat: Math.floor(Date.now() / 1000) + 10 ** 8 }, ...life })}`],
    ],
    delegated: [['Authorization', `Bearer ${await m.delegated({ sub, ...life })}`]],
    guest: [
      ['Authorization', `Bearer ${await m.guest(life)}`],
      ['Guest-Session', newGuestSession(s.guestSessionKey)],
    ],
    'guest-forged': [
      ['Authorization', `Bearer ${await m.guest(life)}`],
      ['Guest-Session', forgeGuestSession('bad-signature', s.guestSessionKey)],
    ],
    'guest-no-session': [
      ['Authorization', `Bearer ${await m.guest(life)}`],
      ['Shopper-IP', '203.0.113.9'],
    ],
    operator: [
      ['Authorization', `Bearer ${await m.operator(life)}`],
      ['Operator', 'fuzz@shop.test'],
    ],
    'operator-no-header': [['Authorization', `Bearer ${await m.operator(life)}`]],
    'invited-agent': [
      ['Authorization', `Bearer ${web}`],
      [
        'Invited-Agent-Context',
        await m.invitedAgentContext({
          sub,
          agentId: 'inv_fuzz',
          permissions: ['assistant:read', 'assistant:write', 'checkout'],
          forwarderToken: web,
        }),
      ],
    ],
    'mcp-forwarder': [
      ['Authorization', `Bearer ${await m.mcpAgentForwarder(life)}`],
      ['Assistant-Subject', await m.assistant({ sub, sid, jkt: key.thumbprint, ...life })],
    ],
    'bearer-garbage': [['Authorization', 'Bearer abc.def.ghi']],
    'bearer-empty': [['Authorization', 'Bearer']],
    basic: [['Authorization', 'Basic dXNlcjpwYXNz']],
    'dpop-garbage': [
      ['Authorization', 'DPoP x.y.z'],
      ['DPoP', 'a.b.c'],
    ],
    'huge-token': [['Authorization', `Bearer ${'A'.repeat(9000)}`]],
    'proxy-secret': [['X-Proxy-Idp-Secret', s.proxyIdpSecret ?? 'unset']],
    'proxy-secret-wrong': [['X-Proxy-Idp-Secret', 'not-the-secret']],
    'recovery-secret': [['Authorization', `Bearer ${s.accountRecoverySecret ?? 'unset'}`]],
    'hub-secret': [['Authorization', `Bearer ${s.conversationHubSecret ?? 'unset'}`]],
    'idp-action-secret': [['Authorization', `Bearer ${s.idpActionSecret ?? 'unset'}`]],
  };
  const assistantToken = await m.assistant({ sub, sid, jkt: key.thumbprint, ...life });
  let lastNonce: string | undefined;
  const kinds = [...Object.keys(fixed), 'assistant', 'assistant-stale-proof', 'webhook-signed', 'webhook-bogus'];
  return {
    assistantSubject: assistantToken,
    nonce(value) {
      if (value) lastNonce = value;
    },
    async pick(rng, method, url, body) {
      const kind = rng.pick(kinds);
      if (kind === 'assistant' || kind === 'assistant-stale-proof') {
        const htu = url.split('?')[0]!;
        const proof = await dpopProof({
          key,
          htm: method,
          htu,
          accessToken: assistantToken,
          ...(lastNonce ? { nonce: lastNonce } : {}),
          ...(kind === 'assistant-stale-proof' ? { iat: 1 } : {}),
        });
        return {
          kind,
          headers: [
            ['Authorization', `DPoP ${assistantToken}`],
            ['DPoP', proof],
          ],
        };
      }
      if (kind === 'webhook-signed')
        return { kind, headers: [['Stripe-Signature', signPayload(body.toString('latin1'), s.stripeWebhookSecret ?? 'whsec_unset', {})]] };
      if (kind === 'webhook-bogus')
        return { kind, headers: [['Stripe-Signature', rng.pick(['t=1,v1=00', 'garbage', `t=${10 ** 12},v1=ab`, ''])]] };
      return { kind, headers: fixed[kind]! };
    },
  };
}
