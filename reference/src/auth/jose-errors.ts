// The one description of a JOSE verification failure, for the `detail` of a refusal: access tokens, invited-agent contexts
// and signed-out proxy tokens all name what failed the same way, each with its own subject. Pure: no pipeline, no Express.
import { errors } from 'jose';

/**
 * What failed, for `subject` ("The token", "The invited-agent context", ...); `algorithms` names the accepted algorithms
 * where the artifact has a fixed one (e.g. "HS256 only").
 */
export function describeJoseError(err: unknown, subject: string, o: { algorithms?: string } = {}): string {
  if (err instanceof errors.JWTExpired) return err.claim === 'iat' ? `${subject} is too old.` : `${subject} has expired.`;
  if (err instanceof errors.JWTClaimValidationFailed)
    return `${subject} ${err.claim === 'typ' ? 'header typ' : `claim ${err.claim}`} is not acceptable.`;
  if (err instanceof errors.JOSEAlgNotAllowed) return `${subject} algorithm is not accepted${o.algorithms ? ` (${o.algorithms})` : ''}.`;
  if (err instanceof errors.JWKSNoMatchingKey) return `No key of the issuer matches ${subject.replace(/^The /, 'the ')}.`;
  if (err instanceof errors.JWSSignatureVerificationFailed) return `${subject} signature does not verify.`;
  return `${subject} is malformed or not acceptable.`;
}
