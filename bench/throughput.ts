// Throughput of the reference as users run it (default logging, on a file) beside a trivial Express 5 GET measured in the
// same run (autocannon), as ratios: an authenticated cart read, a guest catalog read, a guest catalog page of 20 products
// (also beside Express serving that same JSON body from memory), an assistant cart read with a fresh DPoP proof per
// request. Then what default logging costs: each scenario against a second reference with logging off. The last two are
// measured in alternating one-second slices (paired), as throughput and as requests per CPU second; the others one
// after the other. Then the reference's resident memory under 100 connections. Several rounds; medians are printed.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { createMinter } from '../conformance/lib/mint.js';
import { readProfileFile } from '../conformance/engine/runner/params.js';
import { FIXTURE_PROFILE, FIXTURE_SEED } from '../reference/src/paths.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface ThroughputOptions {
  rounds: number;
  seconds: number;
  connections: number;
}

interface Child {
  url: string;
  process: ChildProcess;
  /** Bytes of log written so far (with `logs: 'default'`: stderr goes to a file, as a service manager would keep it). */
  logBytes(): number;
  /** Stops the child and removes its log file. */
  stop(): void;
}

export interface ChildOptions {
  /** Node flags that go first (e.g. --cpu-prof). */
  nodeFlags?: readonly string[];
  /**
   * The reference's LOG_LEVEL: `default` leaves it unset (info, a line per request), as users run it, with stderr on a
   * file; otherwise the level is set and stderr is the bench's own. The trivial server logs nothing either way.
   */
  logs?: 'default' | 'error' | 'silent';
  /** Extra environment (the trivial server's BENCH_PAGE_FILE). */
  env?: Record<string, string>;
}

/**
 * The reference as users run it (the published bin, `serve`; bench/run.ts builds it first) with the rate budgets out of the
 * way, or the trivial server.
 */
export async function startChild(which: 'reference' | 'trivial', o: ChildOptions = {}): Promise<Child> {
  const budget = '1000000000';
  const args = which === 'reference' ? [`${ROOT}dist/cli/bin.cjs`, 'serve', '--port', '0'] : [`${ROOT}bench/trivial-server.mjs`];
  const logs = o.logs ?? 'error';
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GUEST_RATE_LIMIT_BUDGET: budget,
    ASSISTANT_SESSION_RATE_LIMIT_BUDGET: budget,
    ASSISTANT_CLIENT_RATE_LIMIT_BUDGET: budget,
    ...o.env,
  };
  if (logs === 'default') delete env.LOG_LEVEL;
  else env.LOG_LEVEL = logs;
  const logDir = logs === 'default' ? mkdtempSync(join(tmpdir(), 'bench-log-')) : undefined;
  const logFile = logDir ? join(logDir, 'stderr.log') : undefined;
  const stderr = logFile ? openSync(logFile, 'w') : 'inherit';
  const child = spawn(process.execPath, [...(o.nodeFlags ?? []), ...args], { stdio: ['ignore', 'pipe', stderr], env });
  if (typeof stderr === 'number') closeSync(stderr);
  const url = await new Promise<string>((resolve, reject) => {
    const early = (code: number | null) => {
      const tail = logFile && existsSync(logFile) ? `: ${readFileSync(logFile, 'utf8').slice(-400)}` : '';
      reject(new Error(`${args.join(' ')} exited with ${code}${tail}`));
    };
    child.once('exit', early);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const found = /https?:\/\/\S+/.exec(line);
      if (!found) return;
      child.off('exit', early);
      resolve(found[0]);
    });
  });
  return {
    url,
    process: child,
    logBytes: () => (logFile ? statSync(logFile).size : 0),
    stop() {
      child.kill();
      if (logDir) rmSync(logDir, { recursive: true, force: true });
    },
  };
}

/** Resident set size now and at its peak (kB → MB), from /proc. */
function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(/\d+/.exec(status.split('\n').find((l) => l.startsWith(field)) ?? '0')![0]);
  return { rssMb: kb('VmRSS:') / 1024, peakMb: kb('VmHWM:') / 1024 };
}

/**
 * A client's DPoP proofs, signed synchronously (autocannon's request hooks are synchronous). As a client library would, it
 * encodes its header and the token's hash once: per proof only the claims and the signature are new.
 */
function proofSigner(key: KeyObject, jwk: JWK, token: string): (htm: string, htu: string, nonce: string | undefined) => string {
  const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const header = b64({ typ: 'dpop+jwt', alg: 'ES256', jwk });
  const ath = createHash('sha256').update(token).digest('base64url');
  return (htm, htu, nonce) => {
    const payload = { jti: randomUUID(), htm, htu, iat: Math.floor(Date.now() / 1000), ath, ...(nonce ? { nonce } : {}) };
    const input = `${header}.${b64(payload)}`;
    return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  };
}

type Scenario = (url: string) => Promise<autocannon.Options['requests']>;

export async function scenarios(referenceUrl: string): Promise<Record<string, Scenario>> {
  const profile = readProfileFile(FIXTURE_PROFILE);
  const mint = createMinter(profile);
  const guest = await mint.guest();
  const handle = (JSON.parse(readFileSync(FIXTURE_SEED, 'utf8')) as { products: { handle: string }[] }).products[0]!.handle;
  const customer = await mint.customer({ sub: `bench_${randomUUID()}` });

  // An assistant: a signed-in session reported by the proxy, a DPoP-bound token, a fresh proof per request.
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' }) as JWK;
  const sid = `bench_${randomUUID()}`;
  const sub = `bench_${randomUUID()}`;
  const connected = await fetch(`${referenceUrl}/internal/assistant/agents/connected`, {
    method: 'POST',
    headers: { 'x-proxy-idp-secret': profile.secrets.proxyIdpSecret!, 'content-type': 'application/json' },
    body: JSON.stringify({ subject: sub, agent_id: 'bench', client_id: 'bench_client', permissions: ['assistant:read'], session_id: sid }),
  });
  if (connected.status >= 300) throw new Error(`could not register the assistant session: ${connected.status} ${await connected.text()}`);
  const token = await mint.assistant({ sub, sid, jkt: await calculateJwkThumbprint(jwk, 'sha256'), scope: 'cart:read' });
  const signProof = proofSigner(privateKey, jwk, token);
  let nonce: string | undefined;

  return {
    'authenticated GET /v1/cart': async () => [{ method: 'GET', path: '/v1/cart', headers: { authorization: `Bearer ${customer}` } }],
    'guest GET /v1/catalog/products/{handle}': async () => [
      { method: 'GET', path: `/v1/catalog/products/${handle}`, headers: { authorization: `Bearer ${guest}` } },
    ],
    // A page of 20 products (11.7 KB with the fixture seed): also measured beside Express serving the same body.
    [CATALOG_PAGE]: async () => [{ method: 'GET', path: '/v1/catalog/products?limit=20', headers: { authorization: `Bearer ${guest}` } }],
    'assistant GET /v1/cart (DPoP)': async (url) => [
      {
        method: 'GET',
        path: '/v1/cart',
        setupRequest: (req) => ({
          ...req,
          headers: {
            ...req.headers,
            authorization: `DPoP ${token}`,
            dpop: signProof('GET', `${url}/v1/cart`, nonce),
          },
        }),
        onResponse: (_status, _body, _context, headers) => {
          // autocannon keeps the raw header names
          const next = Object.entries((headers ?? {}) as Record<string, string>).find(([k]) => k.toLowerCase() === 'dpop-nonce')?.[1];
          if (next) nonce = next;
        },
      },
    ],
  };
}

async function cannon(url: string, connections: number, seconds: number, requests?: autocannon.Options['requests']) {
  const result = await autocannon({ url, connections, duration: seconds, requests });
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0)
    process.stderr.write(
      `bench: ${url} ${JSON.stringify(requests?.[0]?.path)}: status codes ${JSON.stringify(result.statusCodeStats)}, errors ${result.errors}\n`,
    );
  return { reqPerSec: result.requests.average, requests: result.requests.total, failures };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

type Load = () => Promise<{ reqPerSec: number; requests: number; failures: number }>;

/** CPU seconds a process has used (user + system, every thread), from /proc (clock ticks of 1/100 s). */
function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Side {
  load: Load;
  pid: number;
}

/**
 * Two servers compared in alternating one-second slices (a, b, b, a, …; `slices` of each). Two measures: the per-slice
 * throughput ratios a/b, whose median is what a client sees but which the machine's other load moves from second to
 * second; and the requests each server answered per CPU second it used (user + system, its pool threads included), the
 * inverse of its work per request, which other processes on the machine hardly move.
 */
async function paired(a: Side, b: Side, slices: number) {
  const ratios: number[] = [];
  const bRates: number[] = [];
  const cpu = { a: 0, b: 0 };
  const answered = { a: 0, b: 0 };
  let failures = 0;
  const run = async (side: Side, key: 'a' | 'b') => {
    const before = cpuSecondsOf(side.pid);
    const r = await side.load();
    cpu[key] += cpuSecondsOf(side.pid) - before;
    answered[key] += r.requests;
    failures += r.failures;
    return r;
  };
  for (let i = 0; i < slices; i++) {
    let ra, rb;
    if (i % 2 === 0) {
      ra = await run(a, 'a');
      rb = await run(b, 'b');
    } else {
      rb = await run(b, 'b');
      ra = await run(a, 'a');
    }
    ratios.push(ra.reqPerSec / rb.reqPerSec);
    bRates.push(rb.reqPerSec);
  }
  return {
    throughputRatio: median(ratios),
    cpuRatio: answered.a / cpu.a / (answered.b / cpu.b),
    bRate: median(bRates),
    requests: answered.a,
    failures,
  };
}

export const CATALOG_PAGE = 'guest GET /v1/catalog/products (page of 20)';

export interface ThroughputResult {
  /** Each scenario against the reference with default logging, beside the trivial GET. */
  ratios: Record<string, number>;
  failures: Record<string, number>;
  trivialReqPerSec: number;
  /**
   * The catalog page beside Express serving the same JSON body from memory (the same bytes), in paired slices: the
   * throughput ratio and the ratio of requests per CPU second (medians of the rounds).
   */
  page: { ratio: number; cpuRatio: number; bytes: number; expressReqPerSec: number; failures: number };
  /** Per scenario, default logging against logging off in paired slices: 1 − the throughput ratio (median of the rounds). */
  loggingCost: Record<string, number>;
  /** The same from the requests per CPU second: the share of each request's work that is its log line. */
  loggingCpuCost: Record<string, number>;
  /** Non-2xx answers and errors during the paired slices (a DPoP nonce that rotated between two slices, …). */
  loggingFailures: Record<string, number>;
  /** Bytes of log the default configuration wrote per request, over the measured rounds. */
  logBytesPerRequest: number;
  rss100: { rssMb: number; peakMb: number };
}

/** The catalog page as the reference serves it, written to a file for the trivial server to load. */
async function fetchPage(url: string, dir: string): Promise<{ file: string; bytes: number }> {
  const guest = await createMinter(readProfileFile(FIXTURE_PROFILE)).guest();
  const res = await fetch(`${url}/v1/catalog/products?limit=20`, { headers: { authorization: `Bearer ${guest}` } });
  const text = await res.text();
  const items = (JSON.parse(text) as { items?: unknown[] }).items;
  if (res.status !== 200 || items?.length !== 20)
    throw new Error(`the catalog page is not 20 products: ${res.status} ${text.slice(0, 200)}`);
  const file = join(dir, 'page.json');
  writeFileSync(file, text);
  return { file, bytes: Buffer.byteLength(text) };
}

export async function benchThroughput(o: ThroughputOptions): Promise<ThroughputResult> {
  const reference = await startChild('reference', { logs: 'default' });
  const quiet = await startChild('reference', { logs: 'silent' });
  const dir = mkdtempSync(join(tmpdir(), 'bench-page-'));
  let trivial: Child | undefined;
  try {
    const page = await fetchPage(reference.url, dir);
    trivial = await startChild('trivial', { env: { BENCH_PAGE_FILE: page.file } });
    const trivialUrl = trivial.url;
    const trivialPid = trivial.process.pid!;
    const list = await scenarios(reference.url);
    const quietList = await scenarios(quiet.url);
    const ratios: Record<string, number[]> = {};
    const costs: Record<string, number[]> = {};
    const pageRatios: number[] = [];
    const pageCpuRatios: number[] = [];
    const cpuCosts: Record<string, number[]> = {};
    const pageRates: number[] = [];
    const failures: Record<string, number> = {};
    const pairedFailures: Record<string, number> = {};
    let pageFailures = 0;
    const trivialRates: number[] = [];
    // Warm all of them (JIT, caches) before the measured rounds.
    await cannon(`${trivial.url}/`, o.connections, 1);
    await cannon(`${trivial.url}/page`, o.connections, 1);
    for (const requests of Object.values(list)) await cannon(reference.url, o.connections, 1, await requests(reference.url));
    for (const requests of Object.values(quietList)) await cannon(quiet.url, o.connections, 1, await requests(quiet.url));
    const logStart = reference.logBytes();
    let logged = 0;
    for (let round = 0; round < o.rounds; round++) {
      // Beside the trivial GET, one scenario after the other (as before: these targets predate the paired measures).
      const base = await cannon(`${trivial.url}/`, o.connections, o.seconds);
      trivialRates.push(base.reqPerSec);
      for (const [name, requests] of Object.entries(list)) {
        const r = await cannon(reference.url, o.connections, o.seconds, await requests(reference.url));
        logged += r.requests;
        (ratios[name] ??= []).push(r.reqPerSec / base.reqPerSec);
        failures[name] = (failures[name] ?? 0) + r.failures;
      }
      // Default logging against logging off, and the catalog page against Express sending it: paired slices.
      for (const [name, requests] of Object.entries(list)) {
        const p = await paired(
          { pid: reference.process.pid!, load: async () => cannon(reference.url, o.connections, 1, await requests(reference.url)) },
          { pid: quiet.process.pid!, load: async () => cannon(quiet.url, o.connections, 1, await quietList[name]!(quiet.url)) },
          o.seconds,
        );
        logged += p.requests;
        (costs[name] ??= []).push(1 - p.throughputRatio);
        (cpuCosts[name] ??= []).push(1 - p.cpuRatio);
        pairedFailures[name] = (pairedFailures[name] ?? 0) + p.failures;
      }
      const p = await paired(
        {
          pid: reference.process.pid!,
          load: async () => cannon(reference.url, o.connections, 1, await list[CATALOG_PAGE]!(reference.url)),
        },
        { pid: trivialPid, load: async () => cannon(`${trivialUrl}/page`, o.connections, 1) },
        o.seconds,
      );
      logged += p.requests;
      pageRatios.push(p.throughputRatio);
      pageCpuRatios.push(p.cpuRatio);
      pageRates.push(p.bRate);
      pageFailures += p.failures;
    }
    // Queued lines reach the file shortly after the last answer.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const logBytesPerRequest = logged > 0 ? (reference.logBytes() - logStart) / logged : 0;
    // Memory under 100 connections: the heaviest read and the DPoP path, then the resident size and its peak.
    for (const requests of Object.values(list)) await cannon(reference.url, 100, o.seconds, await requests(reference.url));
    const rss100 = memoryOf(reference.process.pid!);
    return {
      ratios: Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, median(v)])),
      failures,
      trivialReqPerSec: median(trivialRates),
      page: {
        ratio: median(pageRatios),
        cpuRatio: median(pageCpuRatios),
        bytes: page.bytes,
        expressReqPerSec: median(pageRates),
        failures: pageFailures,
      },
      loggingCost: Object.fromEntries(Object.entries(costs).map(([k, v]) => [k, median(v)])),
      loggingCpuCost: Object.fromEntries(Object.entries(cpuCosts).map(([k, v]) => [k, median(v)])),
      loggingFailures: pairedFailures,
      logBytesPerRequest,
      rss100,
    };
  } finally {
    trivial?.stop();
    reference.stop();
    quiet.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
