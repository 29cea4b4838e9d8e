// `npm run crash-test`: kills the reference (SIGKILL) at every step of a saved-card checkout and at random moments of a
// checkout loop, restarts it on the same database file, and after every restart checks that nothing was lost or doubled:
// every charge the provider kept is either the payment of exactly one order or refunded in full, exactly once; every
// order has its charge, its audit row and its stock taken; no checkout attempt is left unsettled. docs/checkout.md.
// Every random round places orders before its kill (a round that places none exercises nothing and fails the test): the
// stock of the variants bought is topped up between rounds, while the server is down. It reports the longest time a
// charge stayed without its order (from the charge to the order written or the refund made).
//   npx tsx scripts/crash-test.ts [--rounds <n>] [--seed <n>]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { profileSchema } from '../contract/profile.js';
import { createMinter } from '../conformance/lib/mint.js';
import { createRng } from './fuzz/rng.js';

const ROOT = new URL('..', import.meta.url).pathname;
const SERVER = join(ROOT, 'scripts/crash/server.ts');
const profile = profileSchema.parse(JSON.parse(readFileSync(join(ROOT, 'fixtures/profile.json'), 'utf8')));
const minter = createMinter(profile);
/** Seeded accounts with an address and a card that is charged at once (docs/checkout.md). */
const ACCOUNTS = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({ sub: `cust_checkout_${n}`, card: `pm_chk${n}` }));
/** CHECKOUT_RECONCILE_AFTER_SECONDS of every server started here: a single instance settles a stranded charge at start-up. */
const RECONCILE_AFTER_SECONDS = 0;
const VARIANTS = ['var_1701', 'var_1101', 'var_1702', 'var_1103', 'var_1102', 'var_0701'];

interface Server {
  url: string;
  child: ChildProcess;
  exited: Promise<NodeJS.Signals | number | null>;
}

/** Starts the reference; resolves with its URL, or with null when it died before it was ready (a crash point at start-up). */
async function start(dbPath: string, env: Record<string, string> = {}): Promise<Server | null> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_PATH: dbPath, CHECKOUT_RECONCILE_AFTER_SECONDS: String(RECONCILE_AFTER_SECONDS), ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  const url = await new Promise<string | null>((resolve) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /READY (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then(() => resolve(null));
  });
  return url === null ? null : { url, child, exited };
}

async function stop(s: Server): Promise<void> {
  s.child.kill('SIGTERM');
  await s.exited;
}

async function call(base: string, path: string, token: string, method = 'GET', body?: unknown): Promise<number> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Puts one unit in the account's cart and checks out; the status, or null when the server went away mid-request. */
async function buy(base: string, account: (typeof ACCOUNTS)[number], variant: string): Promise<number | null> {
  const token = await minter.delegated({ sub: account.sub, channel: 'openapi' });
  try {
    await call(base, '/v1/cart/items', token, 'POST', { variant_id: variant, quantity: 1 });
    return await call(base, '/v1/checkouts/saved-card', token, 'POST', { payment_method_id: account.card });
  } catch {
    return null;
  }
}

export interface Books {
  orders: number;
  charges: number;
  refunds: number;
  attempts: Record<string, number>;
  /** The longest time (ms) from a charge to its order written or its refund made. */
  longestUnsettledMs: number;
}

/** Stock kept available for the loop: below LOW, a variant is topped up to HIGH between rounds (the server down). */
const STOCK_LOW = 100;
const STOCK_HIGH = 400;
/** How long a round may take to place its first order before it fails as exercising nothing. */
const FIRST_ORDER_TIMEOUT_MS = 30_000;

/** The invariants, read from the database file; returns what it counted, throws on the first violation. */
export function audit(dbPath: string, initialStock: Map<string, number>): Books {
  const db = new Database(dbPath, { readonly: true });
  try {
    const all = <T>(sql: string, ...args: unknown[]) => db.prepare(sql).all(...args) as T[];
    const fail = (what: string) => {
      throw new Error(`crash test: ${what}`);
    };
    const unsettled = all<{ id: string; state: string }>(
      `SELECT id, state FROM checkout_attempts WHERE state IN ('charging','void_due','refund_due')`,
    );
    if (unsettled.length > 0) fail(`attempts left unsettled after the restart: ${JSON.stringify(unsettled)}`);
    const charges = all<{ id: string; status: string; amount_cents: number; refunded_cents: number; order_id: string }>(
      'SELECT id, status, amount_cents, refunded_cents, order_id FROM simulated_charges',
    );
    for (const c of charges) {
      const paid = all<{ order_id: string; amount_cents: number }>(
        'SELECT order_id, amount_cents FROM payments WHERE provider_ref = ?',
        c.id,
      );
      const refunds = all<{ id: string }>('SELECT id FROM simulated_refunds WHERE charge_id = ?', c.id);
      if (c.status === 'failed') {
        if (paid.length > 0 || refunds.length > 0) fail(`declined charge ${c.id} has a payment or a refund`);
        continue;
      }
      if (c.refunded_cents > c.amount_cents) fail(`charge ${c.id} refunded ${c.refunded_cents} of ${c.amount_cents}`);
      const ordered = paid.length === 1 && paid[0]!.amount_cents === c.amount_cents && c.refunded_cents === 0;
      const givenBack = paid.length === 0 && c.refunded_cents === c.amount_cents && refunds.length === 1;
      if (!ordered && !givenBack)
        fail(
          `charge ${c.id} (order ${c.order_id}): ${paid.length} payment(s), ${refunds.length} refund(s), ${c.refunded_cents}/${c.amount_cents} refunded`,
        );
    }
    const orders = all<{ id: string; state: string | null }>(`SELECT o.id, a.state FROM orders o JOIN checkout_attempts a ON a.id = o.id`);
    for (const o of orders) {
      if (o.state !== 'placed') fail(`order ${o.id} exists but its attempt is ${o.state}`);
      const payments = all<{ provider_ref: string }>('SELECT provider_ref FROM payments WHERE order_id = ?', o.id);
      if (payments.length !== 1 || !charges.some((c) => c.id === payments[0]!.provider_ref)) fail(`order ${o.id} has no charge of its own`);
      const rows = all<{ n: number }>(`SELECT count(*) AS n FROM audit_log WHERE action = 'order.placed' AND target = ?`, o.id)[0]!.n;
      if (rows !== 1) fail(`order ${o.id} has ${rows} audit rows`);
    }
    const placed = all<{ n: number }>(`SELECT count(*) AS n FROM checkout_attempts WHERE state = 'placed'`)[0]!.n;
    if (placed !== orders.length) fail(`${placed} attempts placed, ${orders.length} orders`);
    const sold = new Map(
      all<{ variant_id: string; n: number }>(
        'SELECT variant_id, sum(quantity) AS n FROM order_lines WHERE order_id IN (SELECT id FROM checkout_attempts) GROUP BY variant_id',
      ).map((r) => [r.variant_id, r.n]),
    );
    for (const [variant, before] of initialStock) {
      const now = all<{ stock: number }>('SELECT stock FROM variants WHERE id = ?', variant)[0]!.stock;
      if (now !== before - (sold.get(variant) ?? 0)) fail(`stock of ${variant}: ${now}, expected ${before} - ${sold.get(variant) ?? 0}`);
    }
    const attempts = Object.fromEntries(
      all<{ state: string; n: number }>('SELECT state, count(*) AS n FROM checkout_attempts GROUP BY state').map((r) => [r.state, r.n]),
    );
    const refunds = all<{ n: number }>('SELECT count(*) AS n FROM simulated_refunds')[0]!.n;
    const settled = all<{ charged: string; settled: string }>(
      `SELECT c.created_at AS charged, a.updated_at AS settled FROM simulated_charges c JOIN checkout_attempts a ON a.id = c.order_id
       WHERE c.status <> 'failed' AND a.state IN ('placed','refunded')`,
    );
    const longestUnsettledMs = Math.max(0, ...settled.map((r) => Date.parse(r.settled) - Date.parse(r.charged)).filter(Number.isFinite));
    return { orders: orders.length, charges: charges.length, refunds, attempts, longestUnsettledMs };
  } finally {
    db.close();
  }
}

export interface CrashTestOptions {
  rounds: number;
  seed: number;
  log?: (line: string) => void;
}

export interface CrashTestResult extends Books {
  kills: number;
  /** New orders of the random round that placed the fewest (each places at least one, or the test fails). */
  fewestOrdersInRound: number;
  /** CHECKOUT_RECONCILE_AFTER_SECONDS of the servers the test starts. */
  reconcileAfterSeconds: number;
}

/** Tops the variants' stock up in the database file (the server is down) and adds what it put in to `expected`. */
function restock(dbPath: string, expected: Map<string, number>): void {
  const db = new Database(dbPath);
  try {
    for (const v of VARIANTS) {
      const stock = db.prepare('SELECT stock FROM variants WHERE id = ?').pluck().get(v) as number;
      if (stock >= STOCK_LOW) continue;
      db.prepare('UPDATE variants SET stock = ? WHERE id = ?').run(STOCK_HIGH, v);
      expected.set(v, expected.get(v)! + STOCK_HIGH - stock);
    }
  } finally {
    db.close();
  }
}

export async function runCrashTest(o: CrashTestOptions): Promise<CrashTestResult> {
  const log = o.log ?? (() => {});
  const dir = mkdtempSync(join(tmpdir(), 'shop-crash-'));
  const dbPath = join(dir, 'shop.db');
  const rng = createRng(o.seed);
  let kills = 0;
  try {
    const first = (await start(dbPath))!;
    await stop(first);
    const db = new Database(dbPath, { readonly: true });
    const initialStock = new Map(VARIANTS.map((v) => [v, db.prepare('SELECT stock FROM variants WHERE id = ?').pluck().get(v) as number]));
    db.close();
    const restartAndAudit = async (why: string) => {
      const s = await start(dbPath);
      if (!s) throw new Error(`crash test: the reference did not start after ${why}`);
      const books = audit(dbPath, initialStock);
      log(`${why}: ${JSON.stringify(books)}`);
      await stop(s);
      return books;
    };
    const expectKilled = async (s: Server, why: string) => {
      if ((await s.exited) !== 'SIGKILL') throw new Error(`crash test: ${why}: the process was not killed at its crash point`);
      kills += 1;
    };

    // 1. Each step of one checkout, killed there.
    for (const point of ['checkout:attempt-written', 'checkout:charged', 'checkout:order-written']) {
      const s = (await start(dbPath, { CRASH_POINT: point }))!;
      const status = await buy(s.url, ACCOUNTS[kills % ACCOUNTS.length]!, VARIANTS[0]!);
      if (status !== null) throw new Error(`crash test: ${point}: the checkout answered ${status} instead of dying`);
      await expectKilled(s, point);
      await restartAndAudit(`killed at ${point}`);
    }

    // 2. Killed after the charge; the cart emptied while the process was down: the restart refunds. The refund itself is
    //    killed once after the provider made it (and before the attempt says so): the next start must not refund twice.
    const account = ACCOUNTS[0]!;
    const s = (await start(dbPath, { CRASH_POINT: 'checkout:charged' }))!;
    await buy(s.url, account, VARIANTS[1]!);
    await expectKilled(s, 'checkout:charged');
    const idle = (await start(dbPath, { CHECKOUT_RECONCILE_AFTER_SECONDS: '86400' }))!;
    const token = await minter.delegated({ sub: account.sub, channel: 'openapi' });
    for (const v of VARIANTS) await call(idle.url, `/v1/cart/items/${v}`, token, 'DELETE');
    await stop(idle);
    const dying = await start(dbPath, { CRASH_POINT: 'checkout:refunded' });
    if (dying) throw new Error('crash test: the start-up refund did not reach its crash point');
    kills += 1;
    await restartAndAudit('cart emptied after the charge, refund killed once');

    // 3. Random moments of a checkout loop on every account at once, once the round has placed an order.
    let books: Books = audit(dbPath, initialStock);
    let fewest = Infinity;
    for (let round = 0; round < o.rounds; round += 1) {
      restock(dbPath, initialStock);
      const live = (await start(dbPath))!;
      let stopping = false;
      let placed = 0;
      let firstOrder: () => void = () => {};
      const placedOne = new Promise<void>((resolve) => (firstOrder = resolve));
      const loops = ACCOUNTS.map(async (a) => {
        while (!stopping) {
          const status = await buy(live.url, a, VARIANTS[rng.int(VARIANTS.length)]!);
          if (status === null) return;
          if (status === 201 && ++placed === 1) firstOrder();
        }
      });
      const timedOut = await Promise.race([
        placedOne.then(() => false),
        new Promise<boolean>((r) => setTimeout(() => r(true), FIRST_ORDER_TIMEOUT_MS).unref()),
      ]);
      if (!timedOut) await new Promise((r) => setTimeout(r, rng.int(400)));
      live.child.kill('SIGKILL');
      stopping = true;
      await live.exited;
      await Promise.all(loops);
      kills += 1;
      const before = books.orders;
      books = await restartAndAudit(`round ${round + 1}, random kill`);
      const added = books.orders - before;
      if (added === 0) throw new Error(`crash test: round ${round + 1} placed no new order, so it exercised nothing`);
      fewest = Math.min(fewest, added);
    }
    return { ...books, kills, fewestOrdersInRound: Number.isFinite(fewest) ? fewest : 0, reconcileAfterSeconds: RECONCILE_AFTER_SECONDS };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string, fallback: number) => {
    const i = process.argv.indexOf(name);
    return i === -1 ? fallback : Number(process.argv[i + 1]);
  };
  const seed = arg('--seed', Date.now() % 1_000_000);
  console.log(`crash-test: seed ${seed} (repeat with --seed ${seed})`);
  runCrashTest({ rounds: arg('--rounds', 20), seed, log: (l) => console.log(l) }).then(
    (b) =>
      console.log(
        `crash-test: ${b.kills} kills; ${b.orders} orders, ${b.charges} charges, ${b.refunds} refunds; nothing lost or doubled; ` +
          `every round placed orders (fewest ${b.fewestOrdersInRound}); longest a charge stayed without its order ${(b.longestUnsettledMs / 1000).toFixed(1)} s`,
      ),
    (err: Error) => {
      console.error(err.message);
      process.exit(1);
    },
  );
}
