// Starts the reference on an ephemeral port for a test file: fixture profile and seed, an in-memory database unless a
// file is given, silent logs (captured), and a controllable clock.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../reference/src/app.js';
import { installClientErrorHandler } from '../../reference/src/boundary.js';
import { loadConfig, type Config, type LoadConfigOptions } from '../../reference/src/config.js';
import { openDatabase } from '../../reference/src/db/open.js';
import { loadSeed, readSeed } from '../../reference/src/db/seed.js';
import type { TokenVerifier } from '../../reference/src/auth/verify-token.js';
import type { Db } from '../../reference/src/db/open.js';
import type { PaymentProvider } from '../../reference/src/payments/port.js';
import { createMinter, type Minter } from '../../conformance/lib/mint.js';
import { profileSchema, type Profile } from '../../contract/profile.js';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';

export const FIXTURE_PROFILE_PATH = new URL('../../fixtures/profile.json', import.meta.url).pathname;
export const fixtureProfile: Profile = profileSchema.parse(JSON.parse(readFileSync(FIXTURE_PROFILE_PATH, 'utf8')));

let rotating: string | undefined;
/**
 * The fixture profile with its guest-key rotation begun now (the previous key's deadline 29 days ahead, within the
 * 30-day window of AUTH-GUEST-15), in a file of its own: for a reference and a run that must show no warning.
 */
export function rotatingProfilePath(): string {
  if (rotating) return rotating;
  const until = new Date(Date.now() + 29 * 86_400_000).toISOString();
  const file = join(mkdtempSync(join(tmpdir(), 'shop-conformance-test-profile-')), 'profile.json');
  writeFileSync(file, JSON.stringify({ ...fixtureProfile, secrets: { ...fixtureProfile.secrets, guestSessionKeyPreviousUntil: until } }));
  return (rotating = file);
}

export interface TestClock {
  now: () => Date;
  set(d: Date): void;
  advance(ms: number): void;
}

export function testClock(start = new Date()): TestClock {
  let t = start.getTime();
  return { now: () => new Date(t), set: (d) => (t = d.getTime()), advance: (ms) => (t += ms) };
}

/** The wall clock, for a reference that takes credentials minted elsewhere (the CLI, a script) at the time they are sent. */
export const realClock = (): TestClock => ({ now: () => new Date(), set: () => undefined, advance: () => undefined });

export interface Harness {
  url: string;
  /** The reference's own database connection, for tests that look at rows the API does not show. */
  db: Db;
  config: Config;
  minter: Minter;
  profile: Profile;
  clock: TestClock;
  logs: Record<string, unknown>[];
  /** fetch relative to the reference's URL, with the JSON body (if any) parsed. */
  call(path: string, init?: RequestInit & { json?: unknown }): Promise<{ status: number; headers: Headers; body: any; text: string }>;
  close(): Promise<void>;
}

export async function startReference(
  o: {
    overrides?: LoadConfigOptions['overrides'];
    env?: NodeJS.ProcessEnv;
    clock?: TestClock;
    verifier?: TokenVerifier;
    payments?: PaymentProvider;
    seed?: boolean;
  } = {},
): Promise<Harness> {
  const config = loadConfig({
    env: o.env ?? {},
    profilePath: FIXTURE_PROFILE_PATH,
    overrides: { logLevel: 'info', databasePath: ':memory:', ...o.overrides },
  });
  const clock = o.clock ?? testClock();
  const db = openDatabase(config.databasePath);
  if (o.seed !== false && config.seedPath) loadSeed(db, readSeed(config.seedPath), clock.now());
  const logs: Record<string, unknown>[] = [];
  const log = {
    debug() {},
    info() {},
    warn: (event: string, f = {}) => logs.push({ level: 'warn', event, ...f }),
    error: (event: string, f = {}) => logs.push({ level: 'error', event, ...f }),
  };
  const { app } = createApp({ config, db, clock: clock.now, log, verifier: o.verifier, payments: o.payments });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
    installClientErrorHandler(s, config.docsUrl);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    db,
    config,
    minter: createMinter(fixtureProfile, { now: clock.now }),
    profile: fixtureProfile,
    clock,
    logs,
    async call(path, init = {}) {
      const { json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (json !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
      const res = await fetch(url + path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
      const text = await res.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      return { status: res.status, headers: res.headers, body, text };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          db.close();
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * The reference on a database file of its own, and a second connection to that file for the test to read what the
 * reference wrote; `close` ends both and removes the file.
 */
export async function startReferenceOnFile(prefix: string): Promise<{ h: Harness; db: Db; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const path = join(dir, 'shop.db');
  const h = await startReference({ overrides: { databasePath: path } });
  const db = openDatabase(path);
  return {
    h,
    db,
    async close() {
      db.close();
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
