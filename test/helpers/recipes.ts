// Shell recipes run as written: the ```sh blocks of docs/ marked `<!-- recipe: name -->` and the `--help` examples of
// the CLI, each run in bash against a reference ($SHOP), with `npx shop-conformance` (or a bare `shop-conformance`)
// meaning this checkout's CLI, run from its sources. test/cli/doc-recipes.test.ts and test/cli/help-examples.test.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const DOCS = new URL('../../docs/', import.meta.url).pathname;
const CLI = new URL('../../cli/main.ts', import.meta.url).pathname;
// tsx by its absolute URL: the recipe runs in a directory of its own, where `--import tsx` would not resolve.
const TSX = import.meta.resolve('tsx');

/** One fenced block of a doc: its file, the line its fence opens on, its language, its text and its recipe marker. */
export interface DocBlock {
  readonly file: string;
  readonly line: number;
  readonly lang: string;
  readonly text: string;
  readonly recipe?: string;
}

/** Every fenced block of docs/*.md, in order. */
export function docBlocks(): DocBlock[] {
  const out: DocBlock[] = [];
  for (const file of readdirSync(DOCS).filter((f) => f.endsWith('.md'))) {
    const lines = readFileSync(join(DOCS, file), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const open = /^( *)```(\w*)\s*$/.exec(lines[i]!);
      if (!open) continue;
      const indent = open[1]!.length;
      let j = i + 1;
      while (j < lines.length && lines[j]!.trim() !== '```') j++;
      const recipe = /^<!-- recipe: ([\w-]+) -->$/.exec(lines[i - 1]?.trim() ?? '')?.[1];
      const text = lines
        .slice(i + 1, j)
        .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
        .join('\n');
      out.push({ file, line: i + 1, lang: open[2]!, text: text + '\n', ...(recipe ? { recipe } : {}) });
      i = j;
    }
  }
  return out;
}

/**
 * The blocks a reader is meant to run in a shell: ```sh, ```bash and ```shell blocks, and plain blocks whose first
 * command line starts with `npx ` or `curl `.
 */
export function shellBlocks(): DocBlock[] {
  return docBlocks().filter((b) => {
    if (['sh', 'bash', 'shell'].includes(b.lang)) return true;
    if (b.lang !== '') return false;
    const first = b.text.split('\n').find((l) => l.trim() && !l.trim().startsWith('#')) ?? '';
    return /^(\w+=\S* )*(npx|curl) /.test(first.trim());
  });
}

/** Every marked recipe: the blocks of one file marked with the same name run as one script, in their order. */
export function recipes(): { file: string; name: string; script: string }[] {
  const byKey = new Map<string, { file: string; name: string; script: string }>();
  for (const b of docBlocks()) {
    if (!b.recipe) continue;
    const key = `${b.file}#${b.recipe}`;
    const r = byKey.get(key);
    if (r) r.script += b.text;
    else byKey.set(key, { file: b.file, name: b.recipe, script: b.text });
  }
  return [...byKey.values()];
}

/**
 * Runs a script in bash (`set -euo pipefail`) in a fresh directory, with SHOP set to the reference's URL and
 * `npx shop-conformance` and `shop-conformance` running this checkout's CLI. Not spawnSync: the reference may answer from
 * this process, whose event loop must keep running.
 */
export async function runScript(script: string, shop: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const prelude = [
    'set -euo pipefail',
    `export SHOP=${shop}`,
    `shop-conformance() { node --import ${TSX} ${CLI} "$@"; }`,
    `npx() { if [ "$1" = shop-conformance ]; then shift; shop-conformance "$@"; else command npx "$@"; fi; }`,
  ].join('\n');
  const child = spawn('bash', ['-c', `${prelude}\n${script}`], { cwd: mkdtempSync(join(tmpdir(), 'shop-recipe-')) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { status, stdout, stderr };
}
