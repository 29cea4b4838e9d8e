// Clause IDs cited in the reference's comments (`// [AUTH-ORDER-4] a token is checked before ...`, right above the branch
// that enforces the clause): what leads from a clause to its code, as `clauses --show` prints it. Read from the sources at
// run time; nothing here imports the reference.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export interface Citation {
  readonly id: string;
  /** Relative to the package root, with forward slashes. */
  readonly file: string;
  readonly line: number;
  /** The comment line's text. */
  readonly text: string;
}

/** A bracketed clause ID as the catalogue spells them: `<PREFIX>-<SECTION>[-<SECTION>…]-<n>`. */
const CITED_ID = /\[([A-Z]+(?:-[A-Z0-9]+)*-\d+)\]/g;

/** The comment part of one line of TypeScript or JavaScript: a `//` or docblock line, or a trailing `// …`. */
function commentOf(line: string): string | undefined {
  const trimmed = line.trimStart();
  if (trimmed.startsWith('//') || trimmed.startsWith('*') || trimmed.startsWith('/*')) return trimmed;
  const at = line.indexOf(' // ');
  return at >= 0 ? line.slice(at + 4) : undefined;
}

/** Every bracketed clause ID in the comments of one source text; code (a regex such as `/[A-Z]-1]/`) is not read. */
export function findCitations(file: string, source: string): Citation[] {
  const found: Citation[] = [];
  source.split('\n').forEach((line, i) => {
    const comment = commentOf(line);
    if (comment === undefined) return;
    const matches = [...comment.matchAll(CITED_ID)];
    if (matches.length === 0) return;
    const text = comment
      .replace(/^(\/\/|\/\*\*?|\*)\s*/, '')
      .replace(/\s*\*\/\s*$/, '')
      .trim();
    for (const m of matches) found.push({ id: m[1]!, file, line: i + 1, text });
  });
  return found;
}

/** The cited IDs that name no clause of `known`, each with where it is cited. */
export function unknownCitations(citations: readonly Citation[], known: ReadonlyMap<string, unknown>): Citation[] {
  return citations.filter((c) => !known.has(c.id));
}

function sourceFiles(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path, ext));
    else if (entry.name.endsWith(ext) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

export interface ReferenceCitations {
  /** Where the citations were read: `reference/src` (TypeScript sources) or `dist/reference/src` (the compiled package). */
  readonly dir: string;
  /** True when only the compiled JavaScript was there: lines are those of the .js files (tsc keeps comments). */
  readonly compiled: boolean;
  readonly citations: Citation[];
}

/**
 * The citations of the reference under `root` (the package root): its TypeScript sources when present (a checkout), else
 * the compiled files of a built package (`dist/reference/src`, which keep their comments). Undefined when neither exists.
 */
export function scanReference(root: string): ReferenceCitations | undefined {
  return scanSources(root, 'reference/src', findCitations);
}

/** The citations `find` reads in `dir` under `root` (TypeScript sources), else in its compiled `dist/` twin (JavaScript). */
function scanSources(root: string, dir: string, find: (file: string, source: string) => Citation[]): ReferenceCitations | undefined {
  for (const [where, ext, compiled] of [
    [dir, '.ts', false],
    [`dist/${dir}`, '.js', true],
  ] as const) {
    const abs = join(root, where);
    if (!existsSync(abs)) continue;
    const citations = sourceFiles(abs, ext).flatMap((path) => find(relative(root, path).split(sep).join('/'), readFileSync(path, 'utf8')));
    return { dir: where, compiled, citations };
  }
  return undefined;
}

/** A clause ID quoted in code, as the suite's judges name the clause a judgement enforces (`clause: 'AUTH-ORDER-4'`). */
const QUOTED_ID = /['"`]([A-Z]+(?:-[A-Z0-9]+)*-\d+)['"`]/g;

/** Every quoted clause ID in the code of one source text (comments are not read), with the code line. */
export function findJudgements(file: string, source: string): Citation[] {
  const found: Citation[] = [];
  source.split('\n').forEach((line, i) => {
    if (commentOf(line) === line.trimStart()) return;
    const code = line.includes(' // ') ? line.slice(0, line.indexOf(' // ')) : line;
    for (const m of code.matchAll(QUOTED_ID)) found.push({ id: m[1]!, file, line: i + 1, text: code.trim() });
  });
  return found;
}

/**
 * Where `explore` judges clauses itself (its model, its differential projection, its oracles): the clause IDs its code
 * names, in `conformance/explore` (a checkout) or `dist/conformance/explore` (a built package). Undefined when neither exists.
 */
export function scanExplore(root: string): ReferenceCitations | undefined {
  return scanSources(root, 'conformance/explore', findJudgements);
}
