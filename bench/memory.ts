// The reference's memory and responsiveness under the worst bodies its limits let through: 200 concurrent clients, each
// sending ~250 KB JSON bodies (just under the 256 KiB cap) nested as deep or as wide as the bytes allow, over keep-alive
// connections, first with a forged bearer token (refused whatever the body; decoding comes first) then as a guest with a
// valid token and session. Meanwhile `/health` is probed from a process of its own and the resident size sampled from /proc.
// The clients run in a process at the lowest CPU priority, standing for callers on other machines (GENERATOR below).
// Targets: peak RSS ≤ 300 MB, median /health latency ≤ 100 ms, in each phase.
import http from 'node:http';
import os from 'node:os';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createForeignKey, createMinter } from '../conformance/lib/mint.js';
import { newGuestSession } from '../conformance/lib/guest-session.js';
import { signWith } from '../conformance/lib/jws.js';
import { readProfileFile } from '../conformance/engine/runner/params.js';
import { FIXTURE_PROFILE } from '../reference/src/paths.js';
import { startChild } from './throughput.js';

export const MEMORY_TARGET_MB = 300;
export const HEALTH_TARGET_MS = 100;
const BODY_BYTES = 250_000;
/** A /health probe unanswered this long counts as unanswered (Infinity). */
export const HEALTH_PROBE_TIMEOUT_MS = 2000;

export interface PhaseResult {
  name: string;
  requests: number;
  statuses: Record<string, number>;
  errors: number;
  peakRssMb: number;
  healthMedianMs: number;
  healthMaxMs: number;
  healthProbes: number;
}

export interface MemoryResult {
  baselineRssMb: number;
  phases: PhaseResult[];
  /** The same forged-bearer load on the yardstick, a bare Express server that reads no body and answers 404 at once. */
  yardstick: PhaseResult;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : NaN);

function probeHealth(url: URL): Promise<number> {
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const req = http.get({ host: url.hostname, port: url.port, path: '/health', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
    });
    req.on('error', () => resolve(Infinity));
    req.setTimeout(HEALTH_PROBE_TIMEOUT_MS, () => req.destroy());
  });
}

/**
 * The /health prober, in a process of its own: timed from the load generator's event loop, which is busy writing 200
 * bodies, a probe would measure the generator as much as the server. It waits `delayMs`, then probes every 250 ms until
 * `untilMs`, printing each latency (ms, or -1 for no answer within the timeout) on a line.
 */
const PROBER = `
const http = require('node:http');
const [url, delayMs, untilMs, timeoutMs] = [new URL(process.argv[1]), ...process.argv.slice(2).map(Number)];
const end = Date.now() + untilMs;
const once = () => new Promise((resolve) => {
  const started = process.hrtime.bigint();
  const req = http.get({ host: url.hostname, port: url.port, path: '/health', agent: false }, (res) => {
    res.resume();
    res.on('end', () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
  });
  req.on('error', () => resolve(-1));
  req.setTimeout(timeoutMs, () => req.destroy());
});
(async () => {
  await new Promise((r) => setTimeout(r, delayMs));
  while (Date.now() < end) {
    process.stdout.write(String(await once()) + '\\n');
    await new Promise((r) => setTimeout(r, 250));
  }
})();
`;

function probeFromAnotherProcess(url: URL, delayMs: number, untilMs: number): Promise<number[]> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', PROBER, url.href, String(delayMs), String(untilMs), String(HEALTH_PROBE_TIMEOUT_MS)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('exit', () =>
      resolve(
        out
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => (Number(l) < 0 ? Infinity : Number(l))),
      ),
    );
  });
}

/**
 * The load generator, in a process of its own started at the lowest CPU priority (nice 19): the clients stand for callers
 * on other machines, so on a 2-core machine they must not take the cores from the server they load (the bare Express
 * yardstick gives no /health answer in 2 s when the generator runs at the server's priority). It keeps `clients` requests in
 * flight over keep-alive connections for `seconds`, alternating the two worst bodies, then prints its tally as JSON.
 */
const GENERATOR = `
const http = require('node:http');
const { url: href, clients, seconds, bytes, headers } = JSON.parse(process.argv[1]);
const url = new URL(href);
const half = Math.floor(bytes / 2);
const bodies = [Buffer.from('['.repeat(half) + ']'.repeat(half)), Buffer.from('[' + Array(half).fill('0').join(',') + ']')];
const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
const tally = { requests: 0, errors: 0, statuses: {} };
let running = true;
const post = (body) => new Promise((resolve, reject) => {
  const req = http.request({ agent, host: url.hostname, port: url.port, path: '/v1/cart/items', method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(body.length) } }, (res) => {
    res.resume();
    res.on('end', () => resolve(res.statusCode));
    res.on('error', reject);
  });
  req.on('error', reject);
  req.end(body);
});
const client = async (i) => {
  let n = i;
  while (running) {
    try {
      const status = await post(bodies[n++ % 2]);
      tally.statuses[status] = (tally.statuses[status] || 0) + 1;
      tally.requests++;
    } catch { tally.errors++; }
  }
};
setTimeout(() => (running = false), seconds * 1000);
Promise.all(Array.from({ length: clients }, (_, i) => client(i))).then(() => {
  agent.destroy();
  process.stdout.write(JSON.stringify(tally));
});
`;

interface Tally {
  requests: number;
  errors: number;
  statuses: Record<string, number>;
}

function generateLoad(url: URL, o: { clients: number; seconds: number }, headers: Record<string, string>): Promise<Tally> {
  return new Promise((resolve, reject) => {
    const config = JSON.stringify({ url: url.href, clients: o.clients, seconds: o.seconds, bytes: BODY_BYTES, headers });
    const child = spawn(process.execPath, ['-e', GENERATOR, config], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      os.setPriority(child.pid!, 19);
    } catch {
      // Raising a child's nice value needs no privilege; where even that is refused, the figures say so (yardstick).
    }
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as Tally) : reject(new Error(`load generator exited with ${code}`)),
    );
  });
}

async function phase(
  name: string,
  pid: number,
  url: URL,
  o: { clients: number; seconds: number },
  headers: Record<string, string>,
): Promise<PhaseResult> {
  let peak = rssMb(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
  // Let the load build up before the first probe, then probe every 250 ms while it lasts.
  const [health, tally] = await Promise.all([probeFromAnotherProcess(url, 500, o.seconds * 1000), generateLoad(url, o, headers)]);
  clearInterval(sampler);
  return {
    name,
    ...tally,
    peakRssMb: Math.max(peak, rssMb(pid)),
    healthMedianMs: median(health),
    healthMaxMs: Math.max(...health),
    healthProbes: health.length,
  };
}

export async function benchMemory(o: { clients?: number; seconds?: number } = {}): Promise<MemoryResult> {
  const clients = o.clients ?? 200;
  const seconds = o.seconds ?? 10;
  const profile = readProfileFile(FIXTURE_PROFILE);
  const minter = createMinter(profile);
  const foreign = await createForeignKey();
  const draft = minter.draft.customer({ sub: 'cust_ada', expiresIn: 3600 });
  const forged = await signWith(draft.payload, draft.header, foreign.privateKey);
  const guest = await minter.guest({ expiresIn: 3600 });
  const reference = await startChild('reference');
  const pid = reference.process.pid!;
  try {
    const url = new URL(reference.url);
    await probeHealth(url);
    const baselineRssMb = rssMb(pid);
    const phases = [
      await phase('forged bearer', pid, url, { clients, seconds }, { authorization: `Bearer ${forged}` }),
      await phase(
        'guest token + session',
        pid,
        url,
        { clients, seconds },
        {
          authorization: `Bearer ${guest}`,
          'guest-session': newGuestSession(profile.secrets.guestSessionKey),
        },
      ),
    ];
    reference.process.kill();
    // On a machine whose cores the load generator shares, /health waits behind every client's turn whatever the server
    // does; the yardstick says how much of the latency is the machine's.
    const trivial = await startChild('trivial');
    try {
      const yardstick = await phase(
        'yardstick',
        trivial.process.pid!,
        new URL(trivial.url),
        { clients, seconds },
        {
          authorization: `Bearer ${forged}`,
        },
      );
      return { baselineRssMb, phases, yardstick };
    } finally {
      trivial.process.kill();
    }
  } finally {
    reference.process.kill();
  }
}
