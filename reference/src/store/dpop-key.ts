// The key of a recorded DPoP proof (migration 8): the first 16 bytes of SHA-256 over the key thumbprint and the jti. A
// collision would need a second preimage of 128 bits; the thumbprint is base64url, so the NUL between the two is never
// part of either and no two pairs hash the same input.
import { createHash } from 'node:crypto';

export function dpopProofKey(jkt: string, jti: string): Buffer {
  return createHash('sha256').update(jkt, 'utf8').update('\0').update(jti, 'utf8').digest().subarray(0, 16);
}
