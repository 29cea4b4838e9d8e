// Regenerates the sample of a failing run in docs/conformance.md ("Reading a failure"): the console output of a real run
// of `shop-conformance run` against a deployment that breaks a clause, and the rows of the clause-matrix.html page that
// run wrote. The deployment is implementations/plainhttp (an independent implementation whose confirmed deviations are
// listed in its expected-failures.json), run without its baseline, on the webhook clauses only, so that the sample stays
// a page. Everything between `<!-- failing-run-sample:start -->` and `<!-- failing-run-sample:end -->` is rewritten; the
// prose around it is kept. Two things are changed from what the run printed, and only these: the ephemeral port the
// implementation listened on is shown as 8080 (its default port), and the temporary output directory is shown as the
// default `conformance-output`. Trailing blanks are trimmed.
//
// Run: npm run docs:samples (npx tsx scripts/gen-failing-run-sample.ts). test/unit/failing-run-sample.test.ts checks that
// the sample still has the shape the current reporters print, without running the suite.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PACKAGE_ROOT } from '../reference/src/paths.js';

export const SAMPLE_FILE = 'docs/conformance.md';
export const SAMPLE_START = '<!-- failing-run-sample:start -->';
export const SAMPLE_END = '<!-- failing-run-sample:end -->';
/** The URL the sample shows for the implementation (it listens on an ephemeral port while the sample is made). */
export const SHOWN_BASE_URL = 'http://127.0.0.1:8080';
export const SHOWN_OUTPUT = 'conformance-output';
export const IMPLEMENTATION_COMMAND = 'node --import tsx implementations/plainhttp/main.ts --port 8080 &';
/** The arguments of the run, as the sample shows them (`npx shop-conformance` + these). */
export const SAMPLE_ARGS = [
  'run',
  '--base-url',
  SHOWN_BASE_URL,
  '--profile',
  'implementations/plainhttp/profile.json',
  '--level',
  'spec',
  '--clause',
  'EVT-WEBHOOK-4',
  'EVT-WEBHOOK-5',
  'EVT-WEBHOOK-6',
] as const;
/** The verdicts of the matrix rows the sample shows: the clauses the run judged or skipped. */
const SHOWN_VERDICTS = new Set(['passed', 'failed', 'warning', 'skipped', 'not-reached']);

// ---------------------------------------------------------------------------------------------------------------
// Pure parts (tested by test/unit/failing-run-sample.test.ts)
// ---------------------------------------------------------------------------------------------------------------

/** The console as the sample shows it: the real URL and output directory replaced, trailing blanks trimmed. */
export function normalizeConsole(text: string, o: { baseUrl: string; outputDir: string }): string {
  return text
    .split(o.baseUrl)
    .join(SHOWN_BASE_URL)
    .split(o.outputDir)
    .join(SHOWN_OUTPUT)
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trim();
}

export interface MatrixPageRow {
  clause: string;
  verdict: string;
  severity: string;
  /** `id (status)` per check. */
  checks: string[];
  failure: string;
  coverage: string;
}

export interface MatrixPage {
  title: string;
  summary: string;
  headers: string[];
  rows: MatrixPageRow[];
}

const unescape = (s: string) =>
  s.replace(/&(amp|lt|gt|quot);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"' })[e as 'amp' | 'lt' | 'gt' | 'quot']);
const text = (html: string) => unescape(html.replace(/<br>/g, ' ').replace(/<[^>]+>/g, '')).trim();

/** What clause-matrix.html shows: its title, its summary line, its column headers and one row per clause. */
export function parseMatrixPage(html: string): MatrixPage {
  const title = text(/<h1>([\s\S]*?)<\/h1>/.exec(html)?.[1] ?? '');
  const summary = text(/<\/h1><p>([\s\S]*?)<\/p>/.exec(html)?.[1] ?? '');
  const headers = [...html.matchAll(/<th>([\s\S]*?)<\/th>/g)].map((m) => text(m[1]!));
  const rows: MatrixPageRow[] = [];
  for (const m of html.matchAll(/<tr\b[^>]*\bclass="v-([a-z-]+)"[^>]*>([\s\S]*?)<\/tr>/g)) {
    const cells = [...m[2]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1]!);
    if (cells.length < 6) throw new Error(`clause-matrix.html: a row with ${cells.length} cells, not 6: ${m[0].slice(0, 200)}`);
    const checks = [...cells[3]!.matchAll(/<span class="s-([a-z-]+)">([\s\S]*?)<\/span>/g)].map((c) => `${text(c[2]!)} (${c[1]})`);
    rows.push({
      clause: text(/<b>([\s\S]*?)<\/b>/.exec(cells[0]!)?.[1] ?? ''),
      verdict: text(cells[1]!.split('<br>')[0]!),
      severity: text(cells[2]!),
      checks,
      failure: text(cells[4]!),
      coverage: text(cells[5]!),
    });
  }
  return { title, summary, headers, rows };
}

/** A markdown table cell: backslashes and pipes escaped, `<` kept from reading as HTML. */
const cell = (s: string) => s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/</g, '&lt;');

/** Prose wrapped at 120 characters, as the docs are wrapped by hand. */
export function wrap(prose: string, width = 120): string {
  const lines: string[] = [];
  let line = '';
  for (const word of prose.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join('\n');
}

/** The whole block between the markers (markers excluded). */
export function renderSample(o: { console: string; exitCode: number; page: MatrixPage }): string {
  const shown = o.page.rows.filter((r) => SHOWN_VERDICTS.has(r.verdict));
  const omitted = o.page.rows.length - shown.length;
  return [
    '<!-- generated by `npm run docs:samples` (scripts/gen-failing-run-sample.ts) from a real run: do not edit by hand -->',
    '',
    '```console',
    `$ ${IMPLEMENTATION_COMMAND}`,
    `$ npx shop-conformance ${SAMPLE_ARGS.join(' ')}`,
    o.console,
    '$ echo $?',
    String(o.exitCode),
    '```',
    '',
    wrap(`The page \`${SHOWN_OUTPUT}/clause-matrix.html\` of the same run shows, under its title "${o.page.title}":`),
    '',
    `> ${o.page.summary}`,
    '',
    wrap(
      `and then one row per clause, ${o.page.rows.length} in all. Here are the rows of the ${shown.length} clauses whose checks ran ` +
        `(the other ${omitted} are clauses it did not select, or that no black box can test), as text; on the page ` +
        'the verdict cell is coloured and each check name links to its test in the HTML report:',
    ),
    '',
    `| ${o.page.headers.join(' | ')} |`,
    `|${o.page.headers.map(() => '---').join('|')}|`,
    ...shown.map(
      (r) => `| ${[`\`${r.clause}\``, `**${r.verdict}**`, r.severity, r.checks.join(', '), r.failure, r.coverage].map(cell).join(' | ')} |`,
    ),
  ].join('\n');
}

/** The text of the block between the markers, or undefined when the document has none. */
export function sampleOf(doc: string): string | undefined {
  const start = doc.indexOf(SAMPLE_START);
  const end = doc.indexOf(SAMPLE_END);
  if (start < 0 || end < start) return undefined;
  return doc.slice(start + SAMPLE_START.length, end).trim();
}

/** The document with its block replaced; refuses a document without exactly one pair of markers. */
export function replaceSample(doc: string, block: string): string {
  const start = doc.indexOf(SAMPLE_START);
  const end = doc.indexOf(SAMPLE_END);
  if (start < 0 || end < start) throw new Error(`${SAMPLE_FILE}: no ${SAMPLE_START} … ${SAMPLE_END} block`);
  if (doc.indexOf(SAMPLE_START, start + 1) >= 0) throw new Error(`${SAMPLE_FILE}: more than one ${SAMPLE_START}`);
  return `${doc.slice(0, start)}${SAMPLE_START}\n${block}\n${doc.slice(end)}`;
}

// ---------------------------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------------------------

/** Starts implementations/<name> on an ephemeral port; resolves with its URL once it prints it. */
export function startImplementation(name = 'plainhttp'): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(PACKAGE_ROOT, 'implementations', name, 'main.ts'), '--port', '0'], {
    cwd: PACKAGE_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${name} printed no URL within 30 s:\n${out}`)), 30_000);
    const read = (d: Buffer) => {
      out += d;
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!.replace(/\/$/, ''), child });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before printing its URL:\n${out}`)));
  });
}

/** Runs the CLI as a user would (`npx shop-conformance` in a checkout), stdout and stderr together, no colours. */
export function runCli(args: readonly string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(PACKAGE_ROOT, 'cli/main.ts'), ...args], {
      cwd: PACKAGE_ROOT,
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, out });
    });
  });
}

export async function produceSample(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'shop-failing-run-'));
  const outputDir = join(dir, SHOWN_OUTPUT);
  const server = await startImplementation();
  try {
    const args = SAMPLE_ARGS.map((a) => (a === SHOWN_BASE_URL ? server.url : a));
    const run = await runCli([...args, '--output', outputDir]);
    if (run.code !== 1) throw new Error(`the run was meant to fail (exit 1), it exited ${run.code}:\n${run.out.slice(-3000)}`);
    const page = parseMatrixPage(readFileSync(join(outputDir, 'clause-matrix.html'), 'utf8'));
    page.title = page.title.split(server.url).join(SHOWN_BASE_URL);
    return renderSample({ console: normalizeConsole(run.out, { baseUrl: server.url, outputDir }), exitCode: run.code, page });
  } finally {
    await new Promise<void>((resolve) =>
      server.child.exitCode !== null ? resolve() : (server.child.once('exit', () => resolve()), server.child.kill()),
    );
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const file = join(PACKAGE_ROOT, SAMPLE_FILE);
  const block = await produceSample();
  const before = readFileSync(file, 'utf8');
  writeFileSync(file, replaceSample(before, block));
  process.stdout.write(`gen-failing-run-sample: wrote the failing run's sample in ${SAMPLE_FILE}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await main();
  } catch (err) {
    process.stderr.write(`gen-failing-run-sample: ${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}
