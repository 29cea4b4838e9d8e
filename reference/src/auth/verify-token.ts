// Access-token verification [AUTH-TOKEN-2]..[AUTH-TOKEN-6]: issuer, signature against the published key
// set, audience, type `at+jwt`, expiry. Only asymmetric algorithms: `none` and HMAC are refused before any key is used.
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { LIMITS } from '../../../contract/limits.js';
import type { Config } from '../config.js';
import { ProblemError } from '../problem.js';
import { describeJoseError } from './jose-errors.js';

export const ACCEPTED_ALGS = ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA'];
const MAX_TOKEN_CHARS = 8192;
/** An `iat` this far ahead of the server's clock is still accepted (issuer and service clocks disagree a little). */
export const IAT_FUTURE_SKEW_SECONDS = 60;

/** `iat` is required (docs/tokens.md) and may not lie in the future beyond the skew: such a token was never issued. */
export function checkIssuedAt(iat: unknown, now: Date): string | undefined {
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return 'The token has no numeric iat.';
  if (iat > now.getTime() / 1000 + IAT_FUTURE_SKEW_SECONDS) return 'The token iat lies in the future.';
  return undefined;
}

export interface VerifiedToken {
  raw: string;
  claims: JWTPayload & { client_id: string; sub: string; scope?: unknown };
  header: Record<string, unknown>;
}

export interface TokenVerifier {
  verify(token: string, now: Date): Promise<VerifiedToken>;
}

/** The key set: fetched and cached from JWKS_URI, read from JWKS_FILE, or the public keys of the profile. */
export function createKeySet(config: Config): JWTVerifyGetKey {
  if (config.jwksUri) {
    return createRemoteJWKSet(new URL(config.jwksUri), {
      timeoutDuration: config.jwksTimeoutMs,
      cacheMaxAge: config.jwksCacheSeconds * 1000,
      cooldownDuration: 30_000,
    });
  }
  if (config.jwksFile) {
    const jwks = JSON.parse(readFileSync(config.jwksFile, 'utf8')) as { keys: unknown[] };
    return createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]);
  }
  return createLocalJWKSet({ keys: config.profileKeys.map((k) => ({ ...k })) });
}

const rejected = (detail: string, cause?: unknown) =>
  new ProblemError('invalid_token', { detail, cause, challenge: { kind: 'chosen', error: 'invalid_token' } });

function isKeySetOutage(err: unknown): boolean {
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) return true;
  // jose throws its base class (no subclass) for a non-200 or non-JSON key-set answer; subclasses are token defects.
  if (err instanceof errors.JOSEError) return err.constructor === errors.JOSEError;
  // fetch() failures (connection refused, DNS) surface as TypeError.
  return err instanceof TypeError;
}

export function createTokenVerifier(config: Config, keySet: JWTVerifyGetKey = createKeySet(config)): TokenVerifier {
  return {
    async verify(token, now) {
      if (token.length > MAX_TOKEN_CHARS) throw rejected('The token is too large.');
      if (token.split('.').length !== 3) throw rejected('The token is not a signed JWT.');
      try {
        // [AUTH-TOKEN-2] [AUTH-TOKEN-3] [AUTH-TOKEN-4] [AUTH-TOKEN-5] [AUTH-TOKEN-6] issuer, signature, audience, at+jwt, expiry.
        const { payload, protectedHeader } = await jwtVerify(token, keySet, {
          issuer: config.issuer,
          audience: [config.apiAudience, config.agentAudience],
          typ: 'at+jwt',
          algorithms: ACCEPTED_ALGS,
          currentDate: now,
          requiredClaims: ['exp', 'iat', 'sub', 'client_id'],
          clockTolerance: 0,
        });
        // RFC 7797 §6: b64 is understood only when crit names it (jose ignores it otherwise); such a token is refused, as
        // the DPoP checker refuses such a proof.
        if ('b64' in protectedHeader && !(Array.isArray(protectedHeader.crit) && protectedHeader.crit.includes('b64')))
          throw rejected('The token header sets b64 without naming it in crit.');
        const iatProblem = checkIssuedAt(payload.iat, now);
        if (iatProblem) throw rejected(iatProblem);
        // [AUTH-TOKEN-7] every access token carries client_id.
        if (typeof payload.client_id !== 'string' || payload.client_id.length === 0)
          throw rejected('client_id must be a non-empty string.');
        if (typeof payload.sub !== 'string' || payload.sub.length === 0) throw rejected('sub must be a non-empty string.');
        if (payload.scope !== undefined && typeof payload.scope !== 'string') throw rejected('scope must be a string.');
        return { raw: token, claims: payload as VerifiedToken['claims'], header: protectedHeader as Record<string, unknown> };
      } catch (err) {
        if (err instanceof ProblemError) throw err;
        // [ERR-TABLE-13] [LIM-RETRY-1] a key-set outage is 503 unavailable with Retry-After: 5.
        if (isKeySetOutage(err)) {
          throw new ProblemError('unavailable', {
            detail: 'The token verifier cannot reach the issuer key set.',
            headers: { 'Retry-After': String(LIMITS.outageRetryAfterSeconds) },
            cause: err,
          });
        }
        throw rejected(describeJoseError(err, 'The token'), err);
      }
    },
  };
}

export const scopesOf = (claims: { scope?: unknown }): Set<string> =>
  new Set(typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : []);
