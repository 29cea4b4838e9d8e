// Replay across instances (spec, Assistant authority: "an accepted proof jti is recorded in shared storage, so every
// instance refuses it; entries are removed by the job clean_dpop_proofs"): two reference instances — two createApp, two
// connections — on one database file in a temporary directory, and the job that prunes the shared table.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createApp } from '../../reference/src/app.js';
import { loadConfig, type Config } from '../../reference/src/config.js';
import { openDatabase, type Db } from '../../reference/src/db/open.js';
import { migrate } from '../../reference/src/db/migrations.js';
import { loadSeed, readSeed } from '../../reference/src/db/seed.js';
import { REPLAY_SKEW_SECONDS } from '../../reference/src/admission/assistant.js';
import { CLEAN_DPOP_PROOFS_JOB, cleanDpopProofs, scheduleCleanDpopProofs } from '../../reference/src/jobs/clean-dpop-proofs.js';
import { countDpopProofs, dpopProofExpiry, recordDpopProof } from '../../reference/src/store/dpop.js';
import { createMinter } from '../../conformance/lib/mint.js';
import { createDpopKey, dpopProof, type DpopKey } from '../../conformance/lib/dpop.js';
import { expectProblem } from '../../conformance/lib/assert.js';
import { FIXTURE_PROFILE_PATH, fixtureProfile, testClock } from '../helpers/reference.js';

interface Instance {
  url: string;
  db: Db;
  server: Server;
}

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

describe('two instances on one database file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shop-replay-'));
  const file = join(dir, 'shop.db');
  const clock = testClock();
  const minter = createMinter(fixtureProfile, { now: clock.now });
  let config: Config;
  let a: Instance;
  let b: Instance;

  async function start(seed: boolean): Promise<Instance> {
    const db = openDatabase(file);
    if (seed && config.seedPath) loadSeed(db, readSeed(config.seedPath), clock.now());
    const { app } = createApp({ config, db, clock: clock.now, log: quiet });
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, db, server };
  }
  const stop = (i: Instance) =>
    new Promise<void>((resolve) => {
      i.server.close(() => {
        i.db.close();
        resolve();
      });
      i.server.closeAllConnections();
    });

  before(async () => {
    config = loadConfig({ env: {}, profilePath: FIXTURE_PROFILE_PATH, overrides: { databasePath: file, logLevel: 'silent' } });
    a = await start(true);
    b = await start(false);
  });
  after(async () => {
    await stop(a);
    await stop(b);
    rmSync(dir, { recursive: true, force: true });
  });

  /** A signed-out assistant session (registered through instance A) and its token, bound to a fresh key. */
  async function assistant(): Promise<{ key: DpopKey; token: string }> {
    const sid = `sess_${randomUUID()}`;
    const res = await fetch(`${a.url}/internal/assistant/sessions/signed-out`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-proxy-idp-secret': fixtureProfile.secrets.proxyIdpSecret! },
      body: JSON.stringify({ session_id: sid, client_id: 'agent-client', scopes: [] }),
    });
    assert.equal(res.status, 201);
    const key = await createDpopKey();
    // A signed-in session is not needed here: a signed-in token on a signed-out session acts signed out, cart reads pass.
    return { key, token: await minter.assistant({ sub: `cust_${randomUUID()}`, sid, jkt: key.thumbprint }) };
  }

  async function nonceFrom(i: Instance): Promise<string> {
    const res = await fetch(`${i.url}/v1/cart`, { headers: { authorization: 'DPoP x.y.z' } });
    return res.headers.get('dpop-nonce')!;
  }

  /** The same proof (same htu path and jti) can be sent to either instance: htu names the instance it is meant for. */
  const send = async (i: Instance, token: string, proof: string) => {
    const res = await fetch(`${i.url}/v1/cart`, { headers: { authorization: `DPoP ${token}`, dpop: proof } });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
  };

  test('the instances share the nonce key: a nonce of A is accepted by B', async () => {
    assert.notEqual(await nonceFrom(a), await nonceFrom(b), 'every response gets a fresh nonce');
    const x = await assistant();
    const proof = await dpopProof({
      key: x.key,
      htm: 'GET',
      htu: `${b.url}/v1/cart`,
      accessToken: x.token,
      nonce: await nonceFrom(a),
      now: clock.now,
    });
    assert.equal((await send(b, x.token, proof)).status, 200);
  });

  test('a proof accepted by instance A is refused by instance B as a replay', async () => {
    const x = await assistant();
    const nonce = await nonceFrom(a);
    const jti = randomUUID();
    // One jti and key, each proof naming the instance it goes to (htu): the replay key is thumbprint + jti.
    const forA = await dpopProof({ key: x.key, htm: 'GET', htu: `${a.url}/v1/cart`, accessToken: x.token, nonce, jti, now: clock.now });
    const forB = await dpopProof({ key: x.key, htm: 'GET', htu: `${b.url}/v1/cart`, accessToken: x.token, nonce, jti, now: clock.now });
    assert.equal((await send(a, x.token, forA)).status, 200);
    const replay = await send(b, x.token, forB);
    expectProblem(replay, { status: 401, error: 'invalid_dpop_proof', docsUrl: fixtureProfile.docsUrl });
    assert.equal(replay.headers.get('www-authenticate'), 'DPoP error="invalid_dpop_proof", algs="ES256"');
    assert.ok(replay.headers.get('dpop-nonce'));
    // And A refuses its own proof a second time.
    assert.equal((await send(a, x.token, forA)).status, 401);
  });

  test('of concurrent uses of one proof across both instances, exactly one succeeds', async () => {
    const x = await assistant();
    const nonce = await nonceFrom(a);
    const jti = randomUUID();
    const proofs = {
      a: await dpopProof({ key: x.key, htm: 'GET', htu: `${a.url}/v1/cart`, accessToken: x.token, nonce, jti, now: clock.now }),
      b: await dpopProof({ key: x.key, htm: 'GET', htu: `${b.url}/v1/cart`, accessToken: x.token, nonce, jti, now: clock.now }),
    };
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, n) => (n % 2 === 0 ? send(a, x.token, proofs.a) : send(b, x.token, proofs.b))),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 1, results.map((r) => r.status).join(','));
    assert.ok(results.every((r) => r.status === 200 || (r.status === 401 && r.body.error === 'invalid_dpop_proof')));
  });

  test('an accepted proof is kept for the iat window plus skew after its iat, then clean_dpop_proofs removes it', async () => {
    const x = await assistant();
    const iat = Math.floor(clock.now().getTime() / 1000);
    const proof = await dpopProof({
      key: x.key,
      htm: 'GET',
      htu: `${a.url}/v1/cart`,
      accessToken: x.token,
      nonce: await nonceFrom(a),
      iat,
      jti: 'kept-jti',
      now: clock.now,
    });
    assert.equal((await send(a, x.token, proof)).status, 200);
    const expiresAt = dpopProofExpiry(a.db, x.key.thumbprint, 'kept-jti');
    assert.equal(expiresAt, iat + config.dpopIatWindowSeconds + REPLAY_SKEW_SECONDS);
    assert.equal(cleanDpopProofs(b.db, new Date(expiresAt! * 1000)).deleted, 0, 'not before its end');
    const later = new Date((expiresAt! + 1) * 1000);
    const run = cleanDpopProofs(b.db, later);
    assert.equal(run.job, CLEAN_DPOP_PROOFS_JOB);
    assert.ok(run.deleted >= 1);
    assert.equal(dpopProofExpiry(a.db, x.key.thumbprint, 'kept-jti'), undefined);
  });
});

describe('the store and the job', () => {
  let db: Db;
  before(() => (db = openDatabase(':memory:')));
  after(() => db.close());

  test('recordDpopProof is an atomic set-if-absent keyed by thumbprint and jti', () => {
    const at = new Date('2030-01-01T00:00:00Z');
    const until = new Date(at.getTime() + 60_000);
    assert.equal(recordDpopProof(db, { jkt: 'k1', jti: 'j1', expiresAt: until }), true);
    assert.equal(recordDpopProof(db, { jkt: 'k1', jti: 'j1', expiresAt: until }), false, 'same key and jti');
    assert.equal(recordDpopProof(db, { jkt: 'k2', jti: 'j1', expiresAt: until }), true, 'another key, same jti');
    assert.equal(recordDpopProof(db, { jkt: 'k1', jti: 'j2', expiresAt: until }), true, 'same key, another jti');
    assert.equal(countDpopProofs(db), 3);
  });

  test('cleanDpopProofs deletes exactly the expired entries', () => {
    db.exec('DELETE FROM dpop_proofs');
    const t = (s: number) => new Date(Date.UTC(2030, 0, 1) + s * 1000);
    recordDpopProof(db, { jkt: 'k', jti: 'old', expiresAt: t(10) });
    recordDpopProof(db, { jkt: 'k', jti: 'edge', expiresAt: t(20) });
    recordDpopProof(db, { jkt: 'k', jti: 'new', expiresAt: t(30) });
    assert.deepEqual(cleanDpopProofs(db, t(20)), { job: 'clean_dpop_proofs', deleted: 1 });
    assert.deepEqual(
      ['old', 'edge', 'new'].map((jti) => dpopProofExpiry(db, 'k', jti)),
      [undefined, t(20).getTime() / 1000, t(30).getTime() / 1000],
    );
    assert.equal(cleanDpopProofs(db, t(31)).deleted, 2);
    assert.equal(countDpopProofs(db), 0);
  });

  test('migration 8 rekeys the proofs recorded before it: their replays are still refused, their expiry kept', () => {
    const old = new Database(':memory:');
    migrate(old, 7);
    old
      .prepare('INSERT INTO dpop_proofs (jkt, jti, expires_at, recorded_at) VALUES (?, ?, ?, ?)')
      .run('k', 'before-upgrade', 2_000_000_000, 1_999_999_000);
    migrate(old);
    assert.equal(dpopProofExpiry(old, 'k', 'before-upgrade'), 2_000_000_000);
    assert.equal(recordDpopProof(old, { jkt: 'k', jti: 'before-upgrade', expiresAt: new Date(2_000_000_000_000) }), false, 'a replay');
    assert.equal(recordDpopProof(old, { jkt: 'k', jti: 'after-upgrade', expiresAt: new Date(2_000_000_000_000) }), true);
    assert.equal(cleanDpopProofs(old, new Date(2_000_000_001_000)).deleted, 2, 'the expiry index is there');
    old.close();
  });

  test("scheduleCleanDpopProofs runs the job on an unref'd timer until stopped, and reports failures", async () => {
    db.exec('DELETE FROM dpop_proofs');
    const t0 = new Date('2030-01-01T00:00:00Z');
    recordDpopProof(db, { jkt: 'k', jti: 'gone', expiresAt: t0 });
    const runs: number[] = [];
    const stop = scheduleCleanDpopProofs(db, {
      intervalMs: 5,
      clock: () => new Date(t0.getTime() + 1000),
      onRun: (r) => runs.push(r.deleted),
    });
    await new Promise((r) => setTimeout(r, 40));
    stop();
    const count = runs.length;
    assert.ok(count >= 1 && runs[0] === 1, `runs: ${runs.join(',')}`);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(runs.length, count, 'no run after stop');

    const closed = openDatabase(':memory:');
    closed.close();
    const failures: unknown[] = [];
    const stop2 = scheduleCleanDpopProofs(closed, { intervalMs: 5, onError: (e) => failures.push(e) });
    await new Promise((r) => setTimeout(r, 30));
    stop2();
    assert.ok(failures.length >= 1, 'a failing run is reported, not thrown');
  });
});
