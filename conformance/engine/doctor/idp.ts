// The suite's issuer as a tiny HTTP service: it publishes the PUBLIC keys of a profile so that a deployment can trust the
// suite through JWKS_URI instead of copying keys. node:http only: the suite stays light and never needs Express.
// It signs nothing and serves no token endpoint; tokens are minted offline by conformance/lib/mint.ts.
//
// It can also be taken down on purpose: `POST /outage` (with the profile's control token, see idpControlToken) makes the
// key set answer 503 for a while, so that a deployment whose JWKS_URI points here can be shown a verifier outage
// (spec, Errors: 503 unavailable with Retry-After: 5). `GET /outage` says whether one is under way.
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Profile } from '../../../contract/profile.js';
import { idpControlToken, OUTAGE_PATH, publicJwks } from '../../lib/mint.js';

export const JWKS_PATHS = ['/.well-known/jwks.json', '/jwks.json'] as const;
export const DISCOVERY_PATH = '/.well-known/openid-configuration';

export interface IdpOptions {
  profile: Profile;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface RunningIdp {
  /** Origin the server listens on, e.g. http://127.0.0.1:8788 */
  url: string;
  /** `<url>/.well-known/jwks.json`: the value of a deployment's JWKS_URI. */
  jwksUri: string;
  close(): Promise<void>;
}

/** Answers GET/HEAD on the key-set and discovery paths; anything else is 404 or 405, as JSON. */
export function idpHandler(profile: Profile, fallbackOrigin: () => string, clock: () => number = Date.now) {
  // Public parts only: publicJwks drops `d`; the body is computed once, since the profile is not reloaded.
  const jwks = JSON.stringify(publicJwks(profile));
  const control = Buffer.from(`Bearer ${idpControlToken(profile)}`);
  let downUntil = 0;
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = new URL(req.url ?? '/', 'http://idp.invalid').pathname;
    const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (path === OUTAGE_PATH) return outage(req, send);
    if (clock() < downUntil && (JWKS_PATHS as readonly string[]).includes(path)) {
      return send(503, 'application/json', JSON.stringify({ error: 'outage', until: new Date(downUntil).toISOString() }));
    }
    const known = (JWKS_PATHS as readonly string[]).includes(path) || path === DISCOVERY_PATH;
    if (!known) return send(404, 'application/json', JSON.stringify({ error: 'not_found', paths: [...JWKS_PATHS, DISCOVERY_PATH] }));
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return send(405, 'application/json', JSON.stringify({ error: 'method_not_allowed' }), { allow: 'GET, HEAD' });
    }
    if (path === DISCOVERY_PATH) {
      // `issuer` is the profile's (what tokens carry as `iss`), not this server's origin: the suite's issuer is a name, and
      // this server only hosts its keys. jwks_uri follows the Host the caller used, so it works behind any address.
      const origin = req.headers.host ? `http://${req.headers.host}` : fallbackOrigin();
      const doc = { issuer: profile.issuer, jwks_uri: `${origin}${JWKS_PATHS[0]}`, id_token_signing_alg_values_supported: ['ES256'] };
      return send(200, 'application/json', JSON.stringify(doc), { 'cache-control': 'no-cache' });
    }
    send(200, 'application/jwk-set+json', jwks, { 'cache-control': 'no-cache' });
  };

  function outage(
    req: IncomingMessage,
    send: (status: number, type: string, body: string, headers?: Record<string, string>) => void,
  ): void {
    if (req.method === 'GET')
      return send(200, 'application/json', JSON.stringify({ outage: clock() < downUntil }), { 'cache-control': 'no-store' });
    if (req.method !== 'POST')
      return send(405, 'application/json', JSON.stringify({ error: 'method_not_allowed' }), { allow: 'GET, POST' });
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length !== control.length || !timingSafeEqual(given, control)) {
      return send(401, 'application/json', JSON.stringify({ error: 'the control token of the profile is required' }), {
        'www-authenticate': 'Bearer',
      });
    }
    // `?seconds=N` (1–120, default 30); `?seconds=0` ends an outage at once.
    const asked = Number(new URL(req.url ?? '/', 'http://idp.invalid').searchParams.get('seconds') ?? 30);
    if (!Number.isInteger(asked) || asked < 0 || asked > 120)
      return send(400, 'application/json', JSON.stringify({ error: 'seconds must be an integer from 0 to 120' }));
    downUntil = asked === 0 ? 0 : clock() + asked * 1000;
    send(200, 'application/json', JSON.stringify({ outage: asked > 0, until: asked > 0 ? new Date(downUntil).toISOString() : null }), {
      'cache-control': 'no-store',
    });
  }
}

export async function startIdp(o: IdpOptions): Promise<RunningIdp> {
  const host = o.host ?? '127.0.0.1';
  let url = '';
  const server = createServer(idpHandler(o.profile, () => url));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    jwksUri: `${url}${JWKS_PATHS[0]}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
