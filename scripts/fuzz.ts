// `npm run fuzz`: a seeded fuzzer of the reference over HTTP/1.1 on raw sockets. Every route of /openapi.json and
// /assistant/openapi.json (the webhook and internal routes are in the first), other methods, path tricks, headers,
// bodies and framings, with valid and invalid credentials of each caller kind. It reports every 5xx (except the
// webhook's own 500 processing_failed), every status >= 400 that is not the problem document, every answer without
// X-Request-Id, every request left without an answer and every unexpected failure logged as api_error; exit 1 on any.
// Attack shapes (scripts/fuzz/generate.ts) are held to their answer: bytes after a `Connection: close` request get no
// second answer and do not replace the real one; a declared Content-Length over the cap gets 413 at once, before the body;
// a JSON body over the depth or value-count limit is refused at decoding (never authenticated or handled); a duplicated
// single-valued header is never accepted; and no problem document is over PROBLEM_MAX_BYTES.
//   npx tsx scripts/fuzz.ts [--seed <n>] [--requests <n>] [--concurrency <n>] [--timeout-ms <n>]
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { createApp } from '../reference/src/app.js';
import { installClientErrorHandler } from '../reference/src/boundary.js';
import { loadConfig } from '../reference/src/config.js';
import { openDatabase } from '../reference/src/db/open.js';
import { loadSeed, readSeed } from '../reference/src/db/seed.js';
import type { Logger } from '../reference/src/log.js';
import { profileSchema } from '../contract/profile.js';
import { readFileSync } from 'node:fs';
import { createCredentials } from './fuzz/credentials.js';
import { draft, routesOf, type Draft } from './fuzz/generate.js';
import { newGuestSession } from '../conformance/lib/guest-session.js';
import { exchange, serialize, type RawAnswer, type RawOutcome } from './fuzz/raw-http.js';
import { createRng } from './fuzz/rng.js';

const PROFILE_PATH = new URL('../fixtures/profile.json', import.meta.url).pathname;

export interface FuzzOptions {
  seed: number;
  requests: number;
  concurrency?: number;
  timeoutMs?: number;
}

/** The bound on a problem document's size: a few KiB whatever the request held. */
export const PROBLEM_MAX_BYTES = 8192;
/**
 * How long the fuzzer waits for the answer to a declared Content-Length over the cap whose body it never sends: any
 * answer shows the server did not wait for the body (one that waits answers only at its own timeout, if ever).
 */
export const OVER_CAP_ANSWER_MS = 3000;

export interface Finding {
  kind:
    | '5xx'
    | 'not-a-problem-document'
    | 'no-x-request-id'
    | 'no-answer'
    | 'api_error'
    | 'problem-too-large'
    | 'second-answer'
    | 'answer-replaced'
    | 'cap-not-enforced'
    | 'late-answer'
    | 'body-not-refused'
    | 'duplicate-accepted';
  request: string;
  detail: string;
}

export interface FuzzSummary {
  seed: number;
  requests: number;
  routes: number;
  statuses: Record<string, number>;
  /** 500 processing_failed answers of the webhook: the spec's own 5xx, counted, not findings. */
  processingFailed: number;
  credentials: Record<string, number>;
  /** Requests per attack shape (scripts/fuzz/generate.ts). */
  shapes: Record<string, number>;
  findings: Finding[];
  ms: number;
}

/** What is wrong with one answer, if anything. */
export function judge(answer: RawAnswer, method: string, target: string): Finding['kind'][] {
  const out: Finding['kind'][] = [];
  const requestId = answer.headers.get('x-request-id')?.[0];
  if (!requestId) out.push('no-x-request-id');
  if (answer.status < 400) return out;
  let body: Record<string, unknown> | undefined;
  try {
    body = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    body = undefined;
  }
  const processingFailed = answer.status === 500 && target.startsWith('/webhooks/') && body?.error === 'processing_failed';
  if (answer.status >= 500 && !processingFailed) out.push('5xx');
  const typeOk = /^application\/problem\+json/.test(answer.headers.get('content-type')?.[0] ?? '');
  const bodyOk =
    method === 'HEAD' ||
    (body !== undefined &&
      typeof body.type === 'string' &&
      typeof body.title === 'string' &&
      body.status === answer.status &&
      typeof body.error === 'string' &&
      body.instance === requestId);
  if (!typeOk || !bodyOk) out.push('not-a-problem-document');
  if (answer.bodyBytes > PROBLEM_MAX_BYTES) out.push('problem-too-large');
  return out;
}

const issueCode = (a: RawAnswer): string => {
  try {
    const body = JSON.parse(a.body.toString('utf8')) as { issues?: { code?: string }[] };
    return body.issues?.[0]?.code ?? '';
  } catch {
    return '';
  }
};

/** What is wrong with the answer to an attack shape, beyond judge(): see the header of this file. */
export function judgeShape(
  outcome: RawOutcome,
  d: Pick<Draft, 'shape' | 'target' | 'jsonRoute'> & { duplicate?: string; dpopScheme?: boolean },
): Finding['kind'][] {
  if (outcome.kind === 'no-answer') return [];
  const out: Finding['kind'][] = [];
  const a = outcome.answer;
  if (outcome.extra.length > 0) out.push('second-answer');
  switch (d.shape) {
    case 'trailing':
      // The parser's refusal of the bytes after the request (codes hpe_*) written in place of the request's own answer.
      if (issueCode(a).startsWith('hpe_')) out.push('answer-replaced');
      break;
    case 'declared':
      if (a.status !== 413) out.push('cap-not-enforced');
      if (outcome.firstMs > OVER_CAP_ANSWER_MS) out.push('late-answer');
      break;
    case 'deep':
    case 'wide': {
      // Decoding comes before authentication on the operation routes (spec, Request processing order).
      const operation = d.target.startsWith('/v1/') || d.target.startsWith('/assistant/');
      if (operation && d.jsonRoute && (a.status < 300 || a.status === 401 || a.status === 403)) out.push('body-not-refused');
      break;
    }
    case 'duplicate':
      // A DPoP field is read only beside a DPoP-scheme token (RFC 9449 §4.3 is a rule of proof checking): a Bearer
      // request's two DPoP fields are ignored with the rest of its unread headers.
      if (d.duplicate === 'DPoP' && !d.dpopScheme) break;
      if (a.status < 400) out.push('duplicate-accepted');
      break;
    case 'plain':
      break;
  }
  return out;
}

/** The request's headers with `name` sent twice: the value it already has, or a plausible one. */
function withDuplicate(headers: [string, string][], name: string, assistantSubject: string): [string, string][] {
  const present = headers.find(([k]) => k.toLowerCase() === name.toLowerCase());
  const plausible: Record<string, string> = {
    Host: '127.0.0.1',
    Authorization: 'Bearer abc.def.ghi',
    Operator: 'fuzz@shop.test',
    'Guest-Session': newGuestSession('fuzz-key'),
    'Shopper-IP': '203.0.113.7',
    'Assistant-Subject': assistantSubject,
    DPoP: 'a.b.c',
  };
  const value = present?.[1] ?? plausible[name] ?? 'x';
  return present ? [...headers, [name, value]] : [...headers, [name, value], [name, plausible[name] ?? 'y']];
}

export async function runFuzz(o: FuzzOptions): Promise<FuzzSummary> {
  const started = Date.now();
  const config = loadConfig({ env: {}, profilePath: PROFILE_PATH, overrides: { databasePath: ':memory:', logLevel: 'error' } });
  const profile = profileSchema.parse(JSON.parse(readFileSync(PROFILE_PATH, 'utf8')));
  const db = openDatabase(':memory:');
  if (config.seedPath) loadSeed(db, readSeed(config.seedPath), new Date());
  const apiErrors: string[] = [];
  const quiet = () => {};
  // The webhook's own 500 processing_failed is logged as api_error too; it is the spec's answer, not a finding.
  const log: Logger = {
    debug: quiet,
    info: quiet,
    warn: quiet,
    error: (event, f = {}) => {
      if (event === 'api_error' && f.error !== 'processing_failed') apiErrors.push(JSON.stringify(f).slice(0, 400));
    },
  };
  const { app } = createApp({ config, db, log });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
    installClientErrorHandler(s, config.docsUrl);
  });
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  try {
    const docs = await Promise.all(
      ['/openapi.json', '/assistant/openapi.json'].map(async (p) => (await fetch(base + p)).json() as Promise<Record<string, unknown>>),
    );
    const routes = routesOf(docs);
    const credentials = await createCredentials(profile, async (sid) => {
      const res = await fetch(`${base}/internal/assistant/agents/connected`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-proxy-idp-secret': profile.secrets.proxyIdpSecret ?? '' },
        body: JSON.stringify({
          subject: 'cust_ada',
          agent_id: 'agent_fuzz',
          client_id: 'agent-client',
          permissions: ['assistant:read', 'assistant:write', 'checkout'],
          session_id: sid,
        }),
      });
      if (res.status >= 300) throw new Error(`cannot register the fuzzer's assistant session: ${res.status} ${await res.text()}`);
    });
    const rng = createRng(o.seed);
    const summary: FuzzSummary = {
      seed: o.seed,
      requests: 0,
      routes: routes.length,
      statuses: {},
      processingFailed: 0,
      credentials: {},
      shapes: {},
      findings: [],
      ms: 0,
    };
    const extraPaths = [
      '/health',
      '/openapi.json',
      '/assistant/openapi.json',
      '/',
      '/v1',
      '/nope',
      '/v1/me/',
      '/V1/cart',
      '/internal',
      '/webhooks/other',
    ];
    // Drafts come from the one PRNG in order, so a seed names the same requests whatever the concurrency.
    const drafts = Array.from({ length: o.requests }, () => draft(rng, routes, extraPaths));
    const picks = drafts.map(() => rng.next());
    let next = 0;
    const worker = async () => {
      while (next < drafts.length) {
        const i = next++;
        const d = drafts[i]!;
        const credRng = createRng(Math.floor(picks[i]! * 2 ** 32));
        const cred = await credentials.pick(credRng, d.method, `${base}${d.target}`, d.body);
        let headers: [string, string][] = [...d.headers, ...cred.headers, ['Connection', 'close']];
        if (d.shape === 'plain' && credRng.chance(0.03)) headers.push(['Authorization', 'Bearer second.header.value']);
        if (d.duplicate) headers = withDuplicate(headers, d.duplicate, credentials.assistantSubject);
        summary.credentials[cred.kind] = (summary.credentials[cred.kind] ?? 0) + 1;
        const request = `${d.method} ${d.target.slice(0, 120)} [${cred.kind}] shape=${d.shape}${d.duplicate ? `(${d.duplicate})` : ''} ${headers.map(([k]) => k).join(',')} framing=${d.framing}${d.declaredLength ? `(${d.declaredLength})` : ''} body=${d.body.subarray(0, 60).toString('latin1')}${d.body.length > 60 ? `…(${d.body.length} bytes)` : ''}${d.trailing ? ` trailing=${JSON.stringify(d.trailing.toString('latin1'))}` : ''}`;
        summary.shapes[d.shape] = (summary.shapes[d.shape] ?? 0) + 1;
        const bytes = serialize({
          method: d.method,
          target: d.target,
          version: d.version,
          headers,
          body: d.body,
          framing: d.framing,
          ...(d.declaredLength !== undefined ? { declaredLength: d.declaredLength } : {}),
        });
        const timeoutMs = d.shape === 'declared' ? Math.min(o.timeoutMs ?? 5000, OVER_CAP_ANSWER_MS) : (o.timeoutMs ?? 5000);
        const outcome = await exchange(port, bytes, { timeoutMs, method: d.method, ...(d.trailing ? { trailing: d.trailing } : {}) });
        summary.requests++;
        if (outcome.kind === 'no-answer') {
          summary.statuses['none'] = (summary.statuses['none'] ?? 0) + 1;
          summary.findings.push({ kind: 'no-answer', request, detail: outcome.reason });
          continue;
        }
        const { answer } = outcome;
        credentials.nonce(answer.headers.get('dpop-nonce')?.[0]);
        summary.statuses[String(answer.status)] = (summary.statuses[String(answer.status)] ?? 0) + 1;
        if (answer.status === 500 && answer.body.includes('"processing_failed"')) summary.processingFailed++;
        for (const kind of [
          ...judge(answer, d.method, d.target),
          ...judgeShape(outcome, { ...d, dpopScheme: headers.some(([k, v]) => /^authorization$/i.test(k) && /^dpop\s/i.test(v)) }),
        ])
          summary.findings.push({
            kind,
            request,
            detail: `${answer.status} ${answer.headers.get('content-type')?.[0] ?? ''} ${answer.body.subarray(0, 200).toString('utf8')}`,
          });
      }
    };
    await Promise.all(Array.from({ length: o.concurrency ?? 8 }, worker));
    for (const e of apiErrors) summary.findings.push({ kind: 'api_error', request: '(logged)', detail: e });
    summary.ms = Date.now() - started;
    return summary;
  } finally {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    db.close();
  }
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

export function printSummary(s: FuzzSummary, write: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): void {
  write(`fuzz: seed ${s.seed}, ${s.requests} requests over ${s.routes} routes in ${(s.ms / 1000).toFixed(1)} s`);
  write(
    `statuses: ${Object.entries(s.statuses)
      .sort()
      .map(([k, v]) => `${k}×${v}`)
      .join(' ')} (of the 500s, ${s.processingFailed} are the webhook's processing_failed)`,
  );
  write(
    `shapes: ${Object.entries(s.shapes)
      .sort()
      .map(([k, v]) => `${k}×${v}`)
      .join(' ')}`,
  );
  write(
    `credentials: ${Object.entries(s.credentials)
      .sort()
      .map(([k, v]) => `${k}×${v}`)
      .join(' ')}`,
  );
  const byKind = new Map<string, Finding[]>();
  for (const f of s.findings) byKind.set(f.kind, [...(byKind.get(f.kind) ?? []), f]);
  write(`findings: ${s.findings.length}${s.findings.length ? ` (${[...byKind].map(([k, v]) => `${k}×${v.length}`).join(' ')})` : ''}`);
  for (const [kind, list] of byKind) for (const f of list.slice(0, 8)) write(`  ${kind}: ${f.request}\n    → ${f.detail}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const seed = Number(argValue(args, '--seed') ?? Math.floor(Math.random() * 2 ** 31));
  const requests = Number(argValue(args, '--requests') ?? 30_000);
  const concurrency = Number(argValue(args, '--concurrency') ?? 8);
  const timeoutMs = Number(argValue(args, '--timeout-ms') ?? 5000);
  const counts = [requests, concurrency, timeoutMs];
  if (!Number.isInteger(seed) || counts.some((n) => !Number.isInteger(n) || n <= 0)) {
    process.stderr.write('fuzz: --seed, --requests, --concurrency and --timeout-ms take positive integers\n');
    process.exit(2);
  }
  process.stdout.write(`fuzz: seed ${seed} (repeat with --seed ${seed})\n`);
  const summary = await runFuzz({ seed, requests, concurrency, timeoutMs });
  printSummary(summary);
  process.exit(summary.findings.length > 0 ? 1 : 0);
}
