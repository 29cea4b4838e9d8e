// The suite signs payment-provider deliveries as the provider does (Stripe's scheme): `Stripe-Signature:
// t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the webhook secret>`. Signing uses Stripe's own test
// helper, so the suite and a real provider agree byte for byte. Helpers for negative checks: a stale timestamp, a wrong
// secret, several v1 values, and one byte of the body altered after signing.
import { randomBytes, randomUUID } from 'node:crypto';
import Stripe from 'stripe';

export const SIGNATURE_HEADER = 'stripe-signature';
/** The provider's replay window: signatures older than this are refused. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export interface SignOptions {
  /** Unix seconds of the `t=` element; now by default. */
  timestamp?: number;
  /** Extra `v1` values sent before the right one (none by default). */
  decoys?: number;
  /** Extra `v1` values sent after the right one. */
  decoysAfter?: number;
}

const decoy = () => randomBytes(32).toString('hex');

/** The `Stripe-Signature` value of `payload` (the exact bytes sent) under `secret`. */
export function signPayload(payload: string, secret: string, o: SignOptions = {}): string {
  const timestamp = o.timestamp ?? Math.floor(Date.now() / 1000);
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
  if (!o.decoys && !o.decoysAfter) return header;
  // `t=…,v1=<right>` → `t=…,v1=<decoy>…,v1=<right>,v1=<decoy>…`
  const [t, ...sigs] = header.split(',');
  const before = Array.from({ length: o.decoys ?? 0 }, () => `v1=${decoy()}`);
  const after = Array.from({ length: o.decoysAfter ?? 0 }, () => `v1=${decoy()}`);
  return [t, ...before, ...sigs, ...after].join(',');
}

/** A fresh event id: deliveries are idempotent by it, so a check that wants processing never reuses one. */
export const newEventId = () => `evt_conf_${randomUUID().replace(/-/g, '')}`;

/** A provider event: `{ id, object: 'event', type, created, livemode: false, data: { object } }`. */
export function stripeEvent(type: string, object: Record<string, unknown>, id = newEventId()): Record<string, unknown> {
  return {
    id,
    object: 'event',
    api_version: '2024-06-20',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    type,
    data: { object },
  };
}

/** A real provider event type that a shop has no use for: a service acknowledges it without effect. */
export const IGNORED_EVENT_TYPE = 'balance.available';

/** A `balance.available` event (the balance of the provider account changed): accepted, no effect on the shop. */
export function ignoredEvent(id = newEventId()): Record<string, unknown> {
  return stripeEvent(
    IGNORED_EVENT_TYPE,
    { object: 'balance', livemode: false, available: [{ amount: 0, currency: 'usd' }], pending: [{ amount: 0, currency: 'usd' }] },
    id,
  );
}

/** The payload with one byte changed (a digit of `created`, else the last character), keeping it valid JSON where possible. */
export function alterOneByte(payload: string): string {
  const i = payload.search(/[0-9]/);
  if (i >= 0) return payload.slice(0, i) + String((Number(payload[i]) + 1) % 10) + payload.slice(i + 1);
  return payload.slice(0, -1) + (payload.endsWith(' ') ? '\n' : ' ');
}
