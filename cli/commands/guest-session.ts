// `shop-conformance guest-session`: a `Guest-Session` value signed with the profile's guest key, as a storefront mints it.
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { Profile } from '../../contract/profile.js';
import { signGuestSession } from '../../conformance/lib/guest-session.js';
import { action, FIXTURE_PROFILE, loadProfile, print, PROFILE_OPTION_HELP, UsageError } from './profile.js';

const LOWERCASE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface GuestSessionRequest {
  /** The cart id to sign; a fresh random one by default. */
  uuid?: string;
  /** Sign with GUEST_SESSION_KEY_PREVIOUS instead of GUEST_SESSION_KEY. */
  previous?: boolean;
  now?: Date;
}

export interface GuestSession {
  value: string;
  uuid: string;
  key: 'current' | 'previous';
  /** When the value stops verifying because its key does (the previous key's deadline); null for the current key. */
  validUntil: string | null;
  /** Human-readable caveat (e.g. the previous key's deadline has passed). */
  warning?: string;
}

export function mintGuestSession(profile: Profile, r: GuestSessionRequest = {}): GuestSession {
  const uuid = r.uuid ?? randomUUID();
  // The format admits lowercase ids only: signing anything else would print a value every verifier must refuse.
  if (!LOWERCASE_UUID.test(uuid)) throw new UsageError(`--uuid must be a lowercase UUID (got ${JSON.stringify(uuid)})`);
  const { guestSessionKey, guestSessionKeyPrevious, guestSessionKeyPreviousUntil } = profile.secrets;
  if (!r.previous) return { value: signGuestSession(uuid, guestSessionKey), uuid, key: 'current', validUntil: null };
  if (guestSessionKeyPrevious === null)
    throw new UsageError(`the profile "${profile.name}" has no previous guest key (secrets.guestSessionKeyPrevious)`);
  const value = signGuestSession(uuid, guestSessionKeyPrevious);
  const expired = guestSessionKeyPreviousUntil !== null && Date.parse(guestSessionKeyPreviousUntil) <= (r.now ?? new Date()).getTime();
  return {
    value,
    uuid,
    key: 'previous',
    validUntil: guestSessionKeyPreviousUntil,
    ...(expired
      ? { warning: `the previous guest key stopped verifying at ${guestSessionKeyPreviousUntil}: servers must refuse this value` }
      : {}),
  };
}

interface Options {
  profile: string;
  uuid?: string;
  previous: boolean;
  json: boolean;
}

export function addGuestSessionCommand(program: Command): void {
  program
    .command('guest-session')
    .description("Print a Guest-Session value (gs1.<uuid>.<HMAC-SHA256>) signed with the profile's guest key: a new guest cart.")
    .option('--profile <file>', PROFILE_OPTION_HELP, FIXTURE_PROFILE)
    .option('--uuid <uuid>', 'sign this cart id (lowercase UUID) instead of a fresh one: the same cart again')
    .option('--previous', 'sign with the previous key (GUEST_SESSION_KEY_PREVIOUS), as during a key rotation', false)
    .option('--json', 'print { value, uuid, key, validUntil } instead of the bare value', false)
    .addHelpText(
      'after',
      `
A guest request carries a storefront token too: \`shop-conformance token guest --json\` prints both headers.

SHOP is the deployment's URL, such as http://127.0.0.1:8787 of \`shop-conformance serve\`.

Examples:
  $ shop-conformance guest-session
  $ GS=$(shop-conformance guest-session); curl "$SHOP/v1/cart" \\
      -H "Authorization: Bearer $(shop-conformance token guest --no-session)" -H "Guest-Session: $GS"
  $ shop-conformance guest-session --uuid 0b7f3c2e-5d1a-4e8b-9c6f-2a4d8e1f3b5c --previous --json`,
    )
    .action(
      action('guest-session', (o: Options) => {
        const s = mintGuestSession(loadProfile(o.profile), { uuid: o.uuid, previous: o.previous });
        if (s.warning) process.stderr.write(`warning: ${s.warning}\n`);
        const { warning: _w, ...out } = s;
        print(o.json ? out : s.value);
      }),
    );
}
