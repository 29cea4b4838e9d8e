// `shop-conformance dpop`: a DPoP proof (RFC 9449 §4.2) for one request, signed with an assistant's key kept in a JWK file.
// The proof itself is built by conformance/lib/dpop.ts; this file only reads and writes key files and normalises inputs.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { calculateJwkThumbprint, importJWK, type CryptoKey, type JWK } from 'jose';
import { createDpopKey, dpopProof, type DpopKey } from '../../conformance/lib/dpop.js';
import { action, print, UsageError } from './profile.js';

/** A DpopKey from a private EC P-256 JWK (what `dpop --new-key` writes): the public part is derived, never trusted from the file. */
export async function dpopKeyFromJwk(jwk: JWK): Promise<DpopKey> {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string') {
    throw new UsageError('a DPoP key must be an EC P-256 JWK (kty "EC", crv "P-256", x, y)');
  }
  if (typeof jwk.d !== 'string') throw new UsageError('a DPoP key file must hold the private key ("d"): a public key cannot sign proofs');
  const publicJwk: JWK = { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y };
  const privateJwk: JWK = { ...publicJwk, d: jwk.d };
  const [privateKey, publicKey] = await Promise.all([importJWK(privateJwk, 'ES256'), importJWK(publicJwk, 'ES256')]);
  return {
    privateKey: privateKey as CryptoKey,
    publicKey: publicKey as CryptoKey,
    publicJwk,
    privateJwk,
    thumbprint: await calculateJwkThumbprint(publicJwk, 'sha256'),
  };
}

export async function readDpopKeyFile(file: string): Promise<DpopKey> {
  const path = resolve(file);
  let jwk: JWK;
  try {
    jwk = JSON.parse(readFileSync(path, 'utf8')) as JWK;
  } catch (err) {
    throw new UsageError(`cannot read the DPoP key ${path}: ${(err as Error).message.split('\n')[0]}`);
  }
  try {
    return await dpopKeyFromJwk(jwk);
  } catch (err) {
    throw new UsageError(`${path}: ${(err as Error).message}`);
  }
}

/** Writes a new private JWK (owner-readable only); refuses to replace an existing file, which may be a key in use. */
export async function writeNewDpopKeyFile(file: string): Promise<DpopKey> {
  const path = resolve(file);
  if (existsSync(path)) throw new UsageError(`${path} exists: --new-key never replaces a key (use --key to sign with it)`);
  const key = await createDpopKey();
  writeFileSync(path, JSON.stringify({ ...key.privateJwk, alg: 'ES256' }, null, 2) + '\n', { mode: 0o600 });
  return key;
}

/** RFC 9449 §4.2: `htu` is the target URI without query and fragment. */
export function proofTargetUri(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`--url must be an absolute URL (got ${JSON.stringify(url)})`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`--url must be http or https (got ${u.protocol})`);
  return `${u.origin}${u.pathname}`;
}

/** `htm` is the request method: an HTTP token, written upper-case as every method of the spec is. */
export function proofMethod(method: string): string {
  if (!/^[A-Za-z]+$/.test(method))
    throw new UsageError(`--method must be an HTTP method such as GET or POST (got ${JSON.stringify(method)})`);
  return method.toUpperCase();
}

export interface ProofRequest {
  key: DpopKey;
  method: string;
  url: string;
  /** The access token the proof travels with: adds `ath`. */
  token?: string;
  nonce?: string;
}

export interface ProofResult {
  proof: string;
  jkt: string;
  publicJwk: JWK;
}

export async function makeProof(r: ProofRequest): Promise<ProofResult> {
  const proof = await dpopProof({
    key: r.key,
    htm: proofMethod(r.method),
    htu: proofTargetUri(r.url),
    ...(r.token !== undefined ? { accessToken: r.token } : {}),
    ...(r.nonce !== undefined ? { nonce: r.nonce } : {}),
  });
  return { proof, jkt: r.key.thumbprint, publicJwk: r.key.publicJwk };
}

interface DpopOptions {
  method: string;
  url: string;
  token?: string;
  nonce?: string;
  key?: string;
  newKey?: string;
  json: boolean;
}

export function addDpopCommand(program: Command): void {
  program
    .command('dpop')
    .description('Print a DPoP proof (ES256, typ dpop+jwt) for one request, as an assistant agent sends it in the DPoP header.')
    .requiredOption('--method <method>', 'HTTP method of the request (htm)')
    .requiredOption('--url <url>', 'target URL of the request; query and fragment are dropped (htu)')
    .option('--token <access token>', 'the access token sent with the proof: adds ath = base64url(SHA-256(token))')
    .option('--nonce <nonce>', 'the DPoP-Nonce the server last answered')
    .option('--key <file>', 'private JWK to sign with (as written by --new-key)')
    .option('--new-key <file>', 'create a new key, write its private JWK to <file> (never replaces one) and sign with it')
    .option('--json', 'print { proof, jkt, publicJwk } instead of the bare proof', false)
    .addHelpText(
      'after',
      `
Without --key or --new-key the proof is signed with a throwaway key, which no token's cnf.jkt names.
Each proof has a fresh jti and iat = now: make one per request.

A deployment accepts a proof only with a token of a session it knows and the DPoP-Nonce it last answered:
\`assistant session\` registers a session, mints its token and fetches a nonce (ASSISTANT_TOKEN, DPOP_NONCE).

SHOP is the deployment's URL, such as http://127.0.0.1:8787 of \`shop-conformance serve\`.

Examples:
  $ shop-conformance dpop --new-key assistant.jwk --method GET --url "$SHOP/v1/me"      # a key, and a proof signed with it
  $ eval "$(shop-conformance assistant session --base-url "$SHOP" --key assistant.jwk)"  # a session bound to that key
  $ curl "$SHOP/v1/me" -H "Authorization: DPoP $ASSISTANT_TOKEN" \\
      -H "DPoP: $(shop-conformance dpop --key assistant.jwk --method GET --url "$SHOP/v1/me" --token "$ASSISTANT_TOKEN" --nonce "$DPOP_NONCE")"
  $ shop-conformance dpop --key assistant.jwk --method POST --url "$SHOP/v1/cart/items" --token "$ASSISTANT_TOKEN" --nonce "$DPOP_NONCE" --json`,
    )
    .action(
      action('dpop', async (o: DpopOptions) => {
        if (o.key !== undefined && o.newKey !== undefined) throw new UsageError('--key and --new-key are exclusive');
        // Check the request before creating any key file.
        proofMethod(o.method);
        proofTargetUri(o.url);
        let key: DpopKey;
        if (o.key !== undefined) key = await readDpopKeyFile(o.key);
        else if (o.newKey !== undefined) {
          key = await writeNewDpopKeyFile(o.newKey);
          process.stderr.write(`wrote a new DPoP key to ${resolve(o.newKey)} (jkt ${key.thumbprint})\n`);
        } else {
          key = await createDpopKey();
          process.stderr.write("signed with a throwaway key: pass --key <file> or --new-key <file> to prove possession of a token's key\n");
        }
        const r = await makeProof({ key, method: o.method, url: o.url, token: o.token, nonce: o.nonce });
        print(o.json ? r : r.proof);
      }),
    );
}
