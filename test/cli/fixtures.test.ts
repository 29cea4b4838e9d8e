// The credential commands (token, guest-session, dpop, profile init, idp): the library functions they call produce what
// docs/tokens.md fixes, and a few spawned runs prove the CLI wiring (stdout is only the artifact, exit codes, signals).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import {
  EmbeddedJWK,
  calculateJwkThumbprint,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JWTPayload,
} from 'jose';
import { profileSchema, type Profile } from '../../contract/profile.js';
import { CUSTOMER_SCOPES, createMinter, publicJwks } from '../../conformance/lib/mint.js';
import { startIdp } from '../../conformance/engine/doctor/idp.js';
import { CONFIG_FIELDS, loadConfig } from '../../reference/src/config.js';
import { startServer } from '../../reference/src/server.js';
import { FIXTURE_PROFILE } from '../../reference/src/paths.js';
import { mintCredential, parseClaim, TOKEN_KINDS, type TokenKind } from '../../cli/commands/token.js';
import { mintGuestSession } from '../../cli/commands/guest-session.js';
import { makeProof, readDpopKeyFile, writeNewDpopKeyFile } from '../../cli/commands/dpop.js';
import { UsageError } from '../../cli/commands/profile.js';
import { formatEnvFile, initProfileFiles, ProfileInitError, profileEnvironment } from '../../cli/profile-init.js';

const CLI = new URL('../../cli/main.ts', import.meta.url).pathname;
const ROOT = new URL('../..', import.meta.url).pathname;
const profile: Profile = profileSchema.parse(JSON.parse(readFileSync(FIXTURE_PROFILE, 'utf8')));
const { clients, audiences, secrets } = profile;
const GS_FORMAT = /^gs1\.[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/;
const dirs: string[] = [];
const tmp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), `shop-cli-${prefix}-`));
  dirs.push(dir);
  return dir;
};
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url');
const hmac = (key: string, msg: string) => createHmac('sha256', Buffer.from(key, 'utf8')).update(msg).digest('base64url');

function cli(args: string[], o: { env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...o.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function verifyWith(p: Profile, token: string, audience: string = p.audiences.api): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, createLocalJWKSet(publicJwks(p)), {
    issuer: p.issuer,
    audience,
    typ: 'at+jwt',
    algorithms: ['ES256'],
  });
  return payload;
}

// ---- token: the claims of docs/tokens.md, per kind --------------------------------------------------------------------

const EXPECTED: Record<TokenKind, { clientId: string; sub: string; audience?: string; scheme: 'Bearer' | 'DPoP'; headers: string[] }> = {
  customer: { clientId: clients.website, sub: 'cust_ada', scheme: 'Bearer', headers: [] },
  delegated: { clientId: clients.agentProtocol, sub: 'cust_ada', audience: audiences.agent, scheme: 'Bearer', headers: [] },
  guest: { clientId: clients.storefront, sub: `${clients.storefront}@clients`, scheme: 'Bearer', headers: ['Guest-Session'] },
  operator: { clientId: clients.backoffice, sub: `${clients.backoffice}@clients`, scheme: 'Bearer', headers: ['Operator'] },
  'invited-agent': {
    clientId: clients.webAgentForwarder,
    sub: `${clients.webAgentForwarder}@clients`,
    scheme: 'Bearer',
    headers: ['Invited-Agent-Context'],
  },
  assistant: { clientId: clients.personalAgentProxy, sub: 'cust_ada', scheme: 'DPoP', headers: [] },
  'mcp-agent-forwarder': {
    clientId: clients.mcpAgentForwarder,
    sub: `${clients.mcpAgentForwarder}@clients`,
    scheme: 'Bearer',
    headers: [],
  },
};

for (const kind of TOKEN_KINDS) {
  test(`token ${kind}: verifies against the profile's public JWKS with the documented client_id, sub and headers`, async () => {
    const c = await mintCredential(profile, { kind });
    const e = EXPECTED[kind];
    const claims = await verifyWith(profile, c.token, e.audience ?? audiences.api);
    assert.equal(c.kind, kind);
    assert.equal(claims.client_id, e.clientId);
    assert.equal(claims.sub, e.sub);
    assert.equal(decodeProtectedHeader(c.token).kid, profile.signingKeys[0]!.kid);
    assert.deepEqual(Object.keys(c.headers), ['Authorization', ...e.headers]);
    assert.equal(c.headers.Authorization, `${e.scheme} ${c.token}`);
    assert.deepEqual(c.claims, claims);
    assert.equal(c.expiresAt, new Date((claims.exp as number) * 1000).toISOString());
    assert.equal(claims.exp! - claims.iat!, 300);
    assert.match(String(claims.jti), /^[0-9a-f-]{36}$/);
  });
}

test('token customer: no act, every customer scope; --sub, --scope, --audience, --expires-in', async () => {
  const c = await mintCredential(profile, { kind: 'customer' });
  assert.equal('act' in c.claims, false);
  assert.equal(c.claims.scope, CUSTOMER_SCOPES.join(' '));
  const d = await mintCredential(profile, {
    kind: 'customer',
    sub: 'cust_ben',
    scope: ['catalog:read', 'cart:read'],
    audience: 'agent',
    expiresIn: 60,
  });
  const claims = await verifyWith(profile, d.token, audiences.agent);
  assert.equal(claims.sub, 'cust_ben');
  assert.equal(claims.scope, 'catalog:read cart:read');
  assert.equal(claims.exp! - claims.iat!, 60);
});

test('token delegated: the outermost act.sub equals client_id; channel mcp is the agent audience, openapi the API audience', async () => {
  const mcp = await mintCredential(profile, { kind: 'delegated' });
  assert.deepEqual(mcp.claims.act, { sub: clients.agentProtocol });
  assert.equal(mcp.claims.aud, audiences.agent);
  const openapi = await mintCredential(profile, { kind: 'delegated', channel: 'openapi' });
  assert.equal((await verifyWith(profile, openapi.token)).aud, audiences.api);
});

test('token guest: base scopes and a fresh Guest-Session signed with the guest key; --no-session, --uuid', async () => {
  const c = await mintCredential(profile, { kind: 'guest' });
  assert.equal(c.claims.scope, 'catalog:read cart:read cart:write');
  const gs = c.headers['Guest-Session']!;
  assert.match(gs, GS_FORMAT);
  const [, uuid, sig] = gs.split('.');
  assert.equal(sig, hmac(secrets.guestSessionKey, uuid!));
  assert.deepEqual(Object.keys((await mintCredential(profile, { kind: 'guest', session: false })).headers), ['Authorization']);
  const id = randomUUID();
  assert.equal((await mintCredential(profile, { kind: 'guest', uuid: id })).headers['Guest-Session']!.split('.')[1], id);
});

test('token operator: ops scopes and the Operator header (default ops@shop.test)', async () => {
  const c = await mintCredential(profile, { kind: 'operator' });
  assert.equal(c.claims.scope, 'ops:read ops:write');
  assert.equal(c.headers.Operator, 'ops@shop.test');
  assert.equal((await mintCredential(profile, { kind: 'operator', operator: 'alice@shop.test' })).headers.Operator, 'alice@shop.test');
});

test('token invited-agent: a forwarder token with agent:forward and an HS256 context bound to it by ath', async () => {
  const c = await mintCredential(profile, {
    kind: 'invited-agent',
    sub: 'cust_ben',
    agentId: 'agent_7',
    permissions: ['assistant:read', 'checkout'],
  });
  assert.ok(String(c.claims.scope).split(' ').includes('agent:forward'));
  const context = c.headers['Invited-Agent-Context']!;
  const { payload, protectedHeader } = await jwtVerify(context, new TextEncoder().encode(secrets.webSessionContextKey), {
    typ: 'invited-agent+jwt',
    algorithms: ['HS256'],
  });
  assert.equal(protectedHeader.alg, 'HS256');
  assert.equal(payload.sub, 'cust_ben');
  assert.equal(payload.agent_id, 'agent_7');
  assert.deepEqual(payload.permissions, ['assistant:read', 'checkout']);
  assert.equal(typeof payload.admitted_at, 'number');
  assert.equal(payload.ath, sha256(c.token));
  assert.deepEqual(c.context?.claims, payload);
});

test('token assistant: act personal_agent, cnf.jkt of the DPoP key, sid; a generated key is returned, a given one is not', async () => {
  const dir = tmp('assistant');
  const key = await writeNewDpopKeyFile(join(dir, 'k.jwk'));
  const c = await mintCredential(profile, {
    kind: 'assistant',
    dpopKey: key,
    sid: 'as_1',
    proofFor: { method: 'get', url: 'http://127.0.0.1:1/v1/me?q=1' },
  });
  assert.deepEqual(c.claims.act, { sub: 'personal_agent' });
  assert.deepEqual(c.claims.cnf, { jkt: key.thumbprint });
  assert.equal(c.claims.sid, 'as_1');
  assert.equal(c.jkt, key.thumbprint);
  assert.equal(c.dpopKey, undefined);
  const { payload } = await jwtVerify(c.headers.DPoP!, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: ['ES256'] });
  assert.deepEqual([payload.htm, payload.htu, payload.ath], ['GET', 'http://127.0.0.1:1/v1/me', sha256(c.token)]);

  const generated = await mintCredential(profile, { kind: 'assistant' });
  assert.equal(typeof generated.dpopKey?.d, 'string');
  assert.equal((generated.claims.cnf as { jkt: string }).jkt, await calculateJwkThumbprint(generated.dpopKey!));
  assert.match(String(generated.claims.sid), /^[0-9a-f-]{36}$/);
});

test('token: claim overrides are merged last, and a profile without a private key is a usage error', async () => {
  const c = await mintCredential(profile, { kind: 'customer', claims: { exp: 1, jti: undefined } });
  assert.equal(c.claims.exp, 1);
  assert.equal('jti' in c.claims, false);
  assert.equal(c.expiresAt, '1970-01-01T00:00:01.000Z');
  const publicOnly = { ...profile, signingKeys: profile.signingKeys.map(({ d: _d, ...k }) => k) };
  await assert.rejects(
    mintCredential(publicOnly, { kind: 'customer' }),
    (err: Error) => err instanceof UsageError && /no private part "d"/.test(err.message),
  );
});

test('parseClaim: JSON values, strings otherwise, empty removes', () => {
  const vectors: [string, [string, unknown]][] = [
    ['exp=1', ['exp', 1]],
    ['act={"sub":"x"}', ['act', { sub: 'x' }]],
    ['aud=["a","b"]', ['aud', ['a', 'b']]],
    ['sub=cust_ben', ['sub', 'cust_ben']],
    ['sub="42"', ['sub', '42']],
    ['nbf=null', ['nbf', null]],
    ['jti=', ['jti', undefined]],
    ['url=http://x/?a=b', ['url', 'http://x/?a=b']],
  ];
  for (const [spec, expected] of vectors) assert.deepEqual(parseClaim(spec), expected, spec);
  for (const bad of ['exp', '=1', '']) assert.throws(() => parseClaim(bad), UsageError, bad);
});

// ---- guest-session ------------------------------------------------------------------------------------------------------

test('guest-session: gs1.<uuid>.<HMAC> with the current key, the previous key, or a given cart id', () => {
  const s = mintGuestSession(profile);
  assert.match(s.value, GS_FORMAT);
  assert.equal(s.value, `gs1.${s.uuid}.${hmac(secrets.guestSessionKey, s.uuid)}`);
  assert.equal(s.key, 'current');
  const uuid = randomUUID();
  const prev = mintGuestSession(profile, { uuid, previous: true });
  assert.equal(prev.value, `gs1.${uuid}.${hmac(secrets.guestSessionKeyPrevious!, uuid)}`);
  assert.equal(prev.validUntil, secrets.guestSessionKeyPreviousUntil);
  assert.equal(prev.warning, undefined);
  assert.match(mintGuestSession(profile, { previous: true, now: new Date('2100-01-01T00:00:00Z') }).warning ?? '', /stopped verifying/);
  assert.throws(() => mintGuestSession(profile, { uuid: uuid.toUpperCase() }), UsageError);
  assert.throws(() => mintGuestSession(profile, { uuid: 'not-a-uuid' }), UsageError);
  const noPrevious = { ...profile, secrets: { ...secrets, guestSessionKeyPrevious: null, guestSessionKeyPreviousUntil: null } };
  assert.throws(() => mintGuestSession(noPrevious, { previous: true }), /no previous guest key/);
});

// ---- dpop --------------------------------------------------------------------------------------------------------------

test('dpop: a key file round-trips; the proof verifies with its embedded jwk; htu drops query and fragment; ath', async () => {
  const dir = tmp('dpop');
  const file = join(dir, 'k.jwk');
  const created = await writeNewDpopKeyFile(file);
  await assert.rejects(writeNewDpopKeyFile(file), UsageError);
  const key = await readDpopKeyFile(file);
  assert.equal(key.thumbprint, created.thumbprint);
  assert.deepEqual(Object.keys(key.publicJwk).sort(), ['crv', 'kty', 'x', 'y']);
  const r = await makeProof({ key, method: 'post', url: 'https://shop.example/v1/cart/items?x=1#top', token: 'tok', nonce: 'n1' });
  const { payload, protectedHeader } = await jwtVerify(r.proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: ['ES256'] });
  assert.deepEqual(protectedHeader.jwk, key.publicJwk);
  assert.equal(r.jkt, await calculateJwkThumbprint(protectedHeader.jwk!));
  assert.deepEqual(
    [payload.htm, payload.htu, payload.ath, payload.nonce],
    ['POST', 'https://shop.example/v1/cart/items', sha256('tok'), 'n1'],
  );
  const publicFile = join(dir, 'public.jwk');
  writeFileSync(publicFile, JSON.stringify(key.publicJwk));
  await assert.rejects(readDpopKeyFile(publicFile), /private key/);
  await assert.rejects(makeProof({ key, method: 'GET', url: '/v1/me' }), UsageError);
  await assert.rejects(makeProof({ key, method: 'G E T', url: 'http://x/' }), UsageError);
});

// ---- profile init ------------------------------------------------------------------------------------------------------

test('profileEnvironment: every CONFIG_FIELDS entry with a profile source, read through it, plus JWKS_FILE', () => {
  const env = profileEnvironment(profile, { jwksFile: '/k/jwks.json' });
  const withSource = Object.values(CONFIG_FIELDS)
    .filter((f) => 'profile' in f)
    .map((f) => f.env);
  assert.deepEqual(
    env.map((e) => e.name),
    [...withSource, 'JWKS_FILE'],
  );
  const get = (n: string) => env.find((e) => e.name === n)?.value;
  assert.equal(get('ISSUER'), profile.issuer);
  assert.equal(get('JWKS_URI'), null);
  assert.equal(get('WEB_SESSION_CONTEXT_KEY'), secrets.webSessionContextKey);
  assert.equal(get('JWKS_FILE'), '/k/jwks.json');
});

test('formatEnvFile: bare values when safe, quoted otherwise, null empty; util.parseEnv reads back every value', () => {
  const entries = [
    { name: 'A', value: 'https://x.test/a_b-c:d@e,f+g%h=i' },
    { name: 'B', value: null },
    { name: 'C', value: '/dir with space/jwks.json' },
    { name: 'D', value: "it's #not a comment" },
    { name: 'E', value: 'a"b$c' },
  ];
  const text = formatEnvFile(entries, ['comment', 'two\nlines']);
  assert.ok(text.startsWith("# comment\n# two lines\nA=https://x.test/a_b-c:d@e,f+g%h=i\nB=\nC='/dir"), text);
  const parsed = parseEnv(text);
  for (const e of entries) assert.equal(parsed[e.name], e.value ?? '', e.name);
});

test('profile init: profile, public jwks.json and an env file that alone configures a deployment; no overwrite without force', async () => {
  const dir = tmp('init');
  const out = join(dir, 'suite', 'profile.json');
  const envOut = join(dir, 'deploy', '.env');
  const r = await initProfileFiles({ out, envOut, name: 'staging', testOnly: false });
  const written = profileSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
  assert.equal(written.name, 'staging');
  assert.equal(written.testOnly, false);
  assert.equal(typeof written.signingKeys[0]!.d, 'string');
  assert.notEqual(written.signingKeys[0]!.kid, profile.signingKeys[0]!.kid);
  assert.ok(existsSync(join(dir, 'suite', written.$schema!)), `$schema ${written.$schema} resolves`);

  const jwks = JSON.parse(readFileSync(join(dir, 'suite', 'jwks.json'), 'utf8')) as { keys: Record<string, unknown>[] };
  assert.equal(jwks.keys.length, 1);
  assert.equal('d' in jwks.keys[0]!, false);
  assert.equal(jwks.keys[0]!.kid, written.signingKeys[0]!.kid);

  assert.equal(statSync(out).mode & 0o777, 0o600);
  assert.equal(statSync(envOut).mode & 0o777, 0o600);
  const env = parseEnv(readFileSync(envOut, 'utf8'));
  assert.equal(env.GUEST_SESSION_KEY, written.secrets.guestSessionKey);
  assert.equal(env.JWKS_FILE, r.jwksPath);
  // Another profile on the side: every value must come from the environment file.
  const config = loadConfig({ env, profilePath: FIXTURE_PROFILE });
  assert.equal(config.issuer, written.issuer);
  assert.equal(config.jwksFile, r.jwksPath);
  assert.equal(config.jwksUri, null);
  assert.equal(config.websiteClientId, written.clients.website);
  assert.notEqual(config.websiteClientId, clients.website);
  assert.equal(config.storefrontClientId, written.clients.storefront);
  assert.equal(config.personalAgentProxyClientId, written.clients.personalAgentProxy);
  assert.equal(config.guestSessionKey, written.secrets.guestSessionKey);
  assert.equal(config.guestSessionKeyPreviousUntil, written.secrets.guestSessionKeyPreviousUntil);
  assert.equal(config.stripeWebhookSecret, written.secrets.stripeWebhookSecret);

  await assert.rejects(
    initProfileFiles({ out, envOut, name: 'again', testOnly: false }),
    (err: Error) => err instanceof ProfileInitError && /--force/.test(err.message),
  );
  assert.equal(profileSchema.parse(JSON.parse(readFileSync(out, 'utf8'))).name, 'staging');
  await initProfileFiles({ out, envOut, name: 'again', testOnly: true, force: true });
  assert.equal(profileSchema.parse(JSON.parse(readFileSync(out, 'utf8'))).testOnly, true);
});

// ---- idp ----------------------------------------------------------------------------------------------------------------

test('idp: serves the public key set at both paths and a discovery document; 404 and 405 elsewhere', async () => {
  const idp = await startIdp({ profile });
  try {
    for (const path of ['/.well-known/jwks.json', '/jwks.json']) {
      const res = await fetch(idp.url + path);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/jwk-set+json');
      const body = (await res.json()) as { keys: Record<string, unknown>[] };
      assert.deepEqual(body, publicJwks(profile));
      assert.ok(body.keys.every((k) => !('d' in k)));
    }
    const discovery = (await (await fetch(idp.url + '/.well-known/openid-configuration')).json()) as Record<string, unknown>;
    assert.equal(discovery.issuer, profile.issuer);
    assert.equal(discovery.jwks_uri, idp.jwksUri);
    assert.equal((await fetch(idp.url + '/token')).status, 404);
    const post = await fetch(idp.jwksUri, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
  } finally {
    await idp.close();
  }
});

test("a reference configured by profile init's env file with JWKS_URI at the idp accepts the new profile's tokens only", async () => {
  const dir = tmp('deploy');
  const r = await initProfileFiles({ out: join(dir, 'profile.json'), envOut: join(dir, '.env'), name: 'deploy', testOnly: true });
  const idp = await startIdp({ profile: r.profile });
  const env = { ...parseEnv(readFileSync(r.envPath, 'utf8')), JWKS_URI: idp.jwksUri };
  const config = loadConfig({
    env,
    profilePath: FIXTURE_PROFILE,
    overrides: { port: 0, host: '127.0.0.1', databasePath: ':memory:', logLevel: 'silent' },
  });
  assert.equal(config.jwksUri, idp.jwksUri);
  const server = await startServer(config);
  try {
    const me = (token: string) => fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    const ok = await me((await mintCredential(r.profile, { kind: 'customer' })).token);
    assert.equal(ok.status, 200, await ok.clone().text());
    // The fixture's issuer name is the same, but its key is not in the idp's key set.
    const foreign = await me(await createMinter(profile).customer({ sub: 'cust_ada' }));
    assert.equal(foreign.status, 401);
  } finally {
    await server.close();
    await idp.close();
  }
});

// ---- the CLI, spawned ---------------------------------------------------------------------------------------------------

test('cli token: stdout is the bare token; --claim exp=1 overrides; --json has token, kind, headers, claims, expiresAt', async () => {
  const bare = await cli(['token', 'customer']);
  assert.equal(bare.code, 0, bare.stderr);
  assert.match(bare.stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/);
  assert.equal((await verifyWith(profile, bare.stdout.trim())).client_id, clients.website);

  const expired = await cli(['token', 'customer', '--claim', 'exp=1', '--claim', 'sub=cust_ben']);
  assert.equal(expired.code, 0, expired.stderr);
  const token = expired.stdout.trim();
  assert.equal(decodeJwt(token).exp, 1);
  assert.equal(decodeJwt(token).sub, 'cust_ben');
  await assert.rejects(verifyWith(profile, token), errors.JWTExpired);

  const json = await cli(['token', 'guest', '--json']);
  assert.equal(json.code, 0, json.stderr);
  const c = JSON.parse(json.stdout) as {
    token: string;
    kind: string;
    headers: Record<string, string>;
    claims: JWTPayload;
    expiresAt: string;
  };
  assert.deepEqual(Object.keys(c), ['token', 'kind', 'headers', 'claims', 'expiresAt']);
  assert.equal(c.kind, 'guest');
  assert.equal(c.headers.Authorization, `Bearer ${c.token}`);
  assert.match(c.headers['Guest-Session']!, GS_FORMAT);
  assert.equal(c.claims.sub, `${clients.storefront}@clients`);

  const headers = await cli(['token', 'invited-agent', '--headers', '--permission', 'checkout']);
  assert.equal(headers.code, 0, headers.stderr);
  const lines = headers.stdout.trim().split('\n');
  assert.equal(lines.length, 2);
  assert.match(lines[0]!, /^Authorization: Bearer \S+$/);
  const context = /^Invited-Agent-Context: (\S+)$/.exec(lines[1]!)?.[1];
  assert.deepEqual(decodeJwt(context!).permissions, ['checkout']);
  assert.equal(decodeJwt(context!).ath, sha256(lines[0]!.slice('Authorization: Bearer '.length)));
});

test('cli token: usage errors exit 2 with one line on stderr and nothing on stdout', async () => {
  for (const args of [
    ['token', 'nobody'],
    ['token', 'guest', '--sub', 'x'],
    ['token', 'customer', '--operator', 'x'],
    ['token', 'customer', '--expires-in', 'soon'],
    ['token', 'customer', '--profile', '/nonexistent.json'],
    ['token', 'customer', '--claim', 'exp'],
    ['token', 'mcp-agent-forwarder', '--assistant-subject', ''],
  ]) {
    const r = await cli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '', args.join(' '));
    assert.match(r.stderr, /^shop-conformance( token)?: [^\n]+\n$/, args.join(' '));
  }
});

test('cli: commander usage errors (missing option, unknown option or command) are one line on stderr, exit 2', async () => {
  for (const args of [['doctor'], ['run', '--bogus'], ['nosuch'], ['token', 'customer', '--expires-in']]) {
    const r = await cli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '', args.join(' '));
    const lines = r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('npm warn'));
    assert.equal(lines.length, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.match(lines[0]!, /^shop-conformance: /);
  }
});

test('cli guest-session: a value matching the format that verifies with HMAC', async () => {
  const r = await cli(['guest-session']);
  assert.equal(r.code, 0, r.stderr);
  const value = r.stdout.trim();
  assert.match(value, GS_FORMAT);
  const [, uuid, sig] = value.split('.');
  assert.equal(sig, hmac(secrets.guestSessionKey, uuid!));
  const uuid2 = randomUUID();
  const prev = await cli(['guest-session', '--uuid', uuid2, '--previous', '--json']);
  assert.equal(prev.code, 0, prev.stderr);
  assert.deepEqual(JSON.parse(prev.stdout), {
    value: `gs1.${uuid2}.${hmac(secrets.guestSessionKeyPrevious!, uuid2)}`,
    uuid: uuid2,
    key: 'previous',
    validUntil: secrets.guestSessionKeyPreviousUntil,
  });
  assert.equal((await cli(['guest-session', '--uuid', 'NOPE'])).code, 2);
});

test('cli dpop and token assistant: the proof verifies with its jwk, ath matches, and the token is bound to the same key', async () => {
  const dir = tmp('cli-dpop');
  const keyFile = join(dir, 'assistant.jwk');
  const t = await cli(['token', 'customer']);
  const r = await cli([
    'dpop',
    '--new-key',
    keyFile,
    '--method',
    'GET',
    '--url',
    'http://127.0.0.1:8787/v1/me',
    '--token',
    t.stdout.trim(),
    '--json',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { proof: string; jkt: string; publicJwk: Record<string, unknown> };
  assert.deepEqual(Object.keys(out), ['proof', 'jkt', 'publicJwk']);
  assert.equal('d' in out.publicJwk, false);
  const { payload, protectedHeader } = await jwtVerify(out.proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: ['ES256'] });
  assert.equal(protectedHeader.alg, 'ES256');
  assert.equal(payload.ath, sha256(t.stdout.trim()));
  assert.equal(out.jkt, await calculateJwkThumbprint(protectedHeader.jwk!));

  const a = await cli(['token', 'assistant', '--dpop-key', keyFile, '--sid', 'as_9', '--json']);
  assert.equal(a.code, 0, a.stderr);
  const c = JSON.parse(a.stdout) as { claims: JWTPayload; headers: Record<string, string>; jkt: string; dpopKey?: unknown };
  assert.deepEqual(c.claims.cnf, { jkt: out.jkt });
  assert.equal(c.headers.Authorization!.startsWith('DPoP '), true);
  assert.equal(c.dpopKey, undefined);

  const again = await cli(['dpop', '--new-key', keyFile, '--method', 'GET', '--url', 'http://127.0.0.1/']);
  assert.equal(again.code, 2);
  assert.equal((await cli(['dpop', '--method', 'GET'])).code, 2);
});

test('cli profile init: writes the three files with nothing on stdout, refuses to overwrite (exit 2), --force replaces', async () => {
  const dir = tmp('cli-init');
  const args = ['profile', 'init', '--out', join(dir, 'profile.json'), '--env-out', join(dir, 'shop.env'), '--name', 'cli'];
  const first = await cli(args);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, '');
  assert.match(first.stderr, /shop-conformance idp/);
  assert.match(first.stderr, /JWKS_FILE/);
  const kid = profileSchema.parse(JSON.parse(readFileSync(join(dir, 'profile.json'), 'utf8'))).signingKeys[0]!.kid;
  const env = parseEnv(readFileSync(join(dir, 'shop.env'), 'utf8'));
  assert.equal(env.JWKS_FILE, join(dir, 'jwks.json'));

  const refused = await cli(args);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--force/);
  assert.equal(profileSchema.parse(JSON.parse(readFileSync(join(dir, 'profile.json'), 'utf8'))).signingKeys[0]!.kid, kid);

  const forced = await cli([...args, '--force', '--json']);
  assert.equal(forced.code, 0, forced.stderr);
  const summary = JSON.parse(forced.stdout) as { profile: string; kid: string; variables: string[] };
  assert.equal(summary.profile, join(dir, 'profile.json'));
  assert.notEqual(summary.kid, kid);
  assert.ok(summary.variables.includes('GUEST_SESSION_KEY') && summary.variables.includes('JWKS_FILE'));
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`cli idp: prints its URL, serves the key set without d, writes --jwks-out, exits 0 on ${signal}`, async () => {
    const dir = tmp('cli-idp');
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'idp', '--port', '0', '--jwks-out', join(dir, 'jwks.json')], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        const m = /^shop-conformance idp listening on (http:\/\/\S+)\n$/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    const body = (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as { keys: Record<string, unknown>[] };
    assert.equal(body.keys[0]!.kid, profile.signingKeys[0]!.kid);
    assert.equal('d' in body.keys[0]!, false);
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'jwks.json'), 'utf8')), body);
    child.kill(signal);
    assert.equal(await exit, 0);
  });
}

test('cli: every new command has an Examples section in --help', async () => {
  for (const command of [['token'], ['guest-session'], ['dpop'], ['profile'], ['profile', 'init'], ['idp']]) {
    const r = await cli([...command, '--help']);
    assert.equal(r.code, 0, command.join(' '));
    assert.match(r.stdout, /\nExamples:\n {2}\$ \S/, command.join(' '));
  }
});
