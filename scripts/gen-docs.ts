// Generates the tables of docs/configuration.md, docs/profile.md, docs/errors.md and docs/cli.md from their sources
// (CONFIG_FIELDS, profileSchema, ERRORS, the commands' definitions), between `<!-- generated:start -->` and
// `<!-- generated:end -->` (a file with several blocks names each: `<!-- generated:start options: run -->` … `<!-- generated:end
// options: run -->`); prose outside the markers is kept as written. Run: npx tsx scripts/gen-docs.ts [--check]. With --check nothing is written and the exit code is 1 when
// a generated block differs from its source.
import { inputSchemaDocument } from '../reference/src/json-schema.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ERRORS, REASON_PHRASES, type ErrorEntry } from '../contract/errors.js';
import { profileSchema, type Profile } from '../contract/profile.js';
import { CONFIG_FIELDS } from '../reference/src/config.js';
import { PACKAGE_ROOT } from '../reference/src/paths.js';
import { cliReference, cliSectionBlocks } from './cli-reference.js';
import { stageNames, type Group } from '../reference/src/pipeline/groups.js';

export const GENERATED_START = '<!-- generated:start -->';
export const GENERATED_END = '<!-- generated:end -->';

/** One generated block: the docs file it belongs to (relative to the package root), its name in it if any, its content. */
export interface GeneratedDoc {
  readonly file: string;
  /** The block's name, for a file with several blocks: its markers are `<!-- generated:start NAME -->`. */
  readonly name?: string;
  readonly source: string;
  readonly block: string;
}

const startMarker = (name?: string) => (name ? `<!-- generated:start ${name} -->` : GENERATED_START);
const endMarker = (name?: string) => (name ? `<!-- generated:end ${name} -->` : GENERATED_END);

// ---------------------------------------------------------------------------------------------------------------
// Markdown helpers
// ---------------------------------------------------------------------------------------------------------------

/** A table cell: pipes escaped (also inside code spans, as GFM requires), line breaks folded. */
const cell = (text: string) => text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
const code = (text: string) => `\`${text}\``;

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// docs/configuration.md: CONFIG_FIELDS
// ---------------------------------------------------------------------------------------------------------------

const PATH = Symbol('profile path');

/** A stand-in profile whose every property read returns another stand-in remembering the path it was reached by. */
function recorder(path: readonly string[] = []): unknown {
  return new Proxy(Object.create(null) as object, {
    get(_target, key) {
      if (key === PATH) return path;
      if (typeof key === 'symbol') return undefined;
      return recorder([...path, key]);
    },
  });
}

export interface ProfileSource {
  /** Dotted path of the profile field the value is read from. */
  readonly path: string;
  /** The value used when the (optional) profile field is absent, if the source has one. */
  readonly fallback?: unknown;
}

/**
 * The profile field a configuration value falls back to, found by calling the field's `profile` function on a recording
 * stand-in. A function that reads several fields or computes a value is not supported: the path must be returned as is.
 */
export function profileSourceOf(source: (p: Profile) => unknown): ProfileSource {
  const result = source(recorder() as Profile);
  const path = typeof result === 'object' && result !== null ? (result as { [PATH]?: unknown })[PATH] : undefined;
  if (!Array.isArray(path) || path.length === 0) throw new Error('the profile source does not return a profile field as is');
  let fallback: unknown;
  try {
    // On an empty profile an optional chain falls through to its default; a required one throws.
    fallback = source({} as Profile);
  } catch {
    fallback = undefined;
  }
  return { path: path.join('.'), ...(fallback !== undefined ? { fallback } : {}) };
}

/** Paths inside the package are shown relative to it, so that the docs do not depend on the checkout's location. */
function showValue(value: unknown): string {
  if (value === null || value === undefined) return 'unset';
  if (typeof value === 'string' && isAbsolute(value) && !relative(PACKAGE_ROOT, value).startsWith('..')) {
    return code(relative(PACKAGE_ROOT, value).split('\\').join('/'));
  }
  return code(typeof value === 'string' ? value : JSON.stringify(value));
}

interface ConfigFieldLike {
  env: string;
  doc: string;
  profile?: (p: Profile) => unknown;
  default?: unknown;
}

export function configurationTable(): string {
  const rows = Object.values(CONFIG_FIELDS as Record<string, ConfigFieldLike>).map((f) => {
    let from: string;
    if (f.profile) {
      const s = profileSourceOf(f.profile);
      from = `from the profile: ${code(s.path)}` + (s.fallback !== undefined ? ` (${showValue(s.fallback)} when absent)` : '');
    } else {
      from = showValue(f.default);
    }
    return [code(f.env), from, f.doc];
  });
  return table(['Variable', 'Default', 'Description'], rows);
}

// ---------------------------------------------------------------------------------------------------------------
// docs/profile.md: profileSchema, through its JSON Schema
// ---------------------------------------------------------------------------------------------------------------

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  description?: string;
  const?: unknown;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minItems?: number;
}

export interface ProfileField {
  /** Dotted path; `[]` marks the items of an array (`signingKeys[].kid`). */
  readonly path: string;
  readonly type: string;
  readonly required: boolean;
  readonly nullable: boolean;
  readonly description: string;
}

/** `anyOf: [X, {type: null}]` is a nullable X; zod puts the description on the wrapper or on X. */
function unwrapNullable(s: JsonSchema): { core: JsonSchema; nullable: boolean } {
  if (s.anyOf) {
    const rest = s.anyOf.filter((b) => b.type !== 'null');
    if (rest.length === 1 && rest.length < s.anyOf.length) return { core: rest[0]!, nullable: true };
  }
  return { core: s, nullable: false };
}

function typeOf(s: JsonSchema): string {
  if (s.const !== undefined) return code(JSON.stringify(s.const));
  if (s.enum) return s.enum.map((v) => code(JSON.stringify(v))).join(' | ');
  if (s.anyOf) return s.anyOf.map(typeOf).join(' or ');
  const notes: string[] = [];
  switch (s.type) {
    case 'string': {
      if (s.format === 'uri') notes.push('URI');
      else if (s.format === 'date-time') notes.push('ISO 8601 date-time');
      else if (s.format === 'starts_with' && s.pattern)
        notes.push(`starts with ${code(s.pattern.replace(/^\^/, '').replace(/\.\*$/, ''))}`);
      else if (s.format) notes.push(s.format);
      else if (s.pattern) notes.push(`matches ${code(s.pattern)}`);
      if (s.minLength === 1 && s.maxLength === undefined) notes.push('non-empty');
      else if (s.minLength !== undefined && s.minLength > 1) notes.push(`at least ${s.minLength} characters`);
      if (s.maxLength !== undefined) notes.push(`at most ${s.maxLength} characters`);
      break;
    }
    case 'integer':
    case 'number': {
      if (s.exclusiveMinimum === 0) notes.push('> 0');
      else if (s.exclusiveMinimum !== undefined) notes.push(`> ${s.exclusiveMinimum}`);
      if (s.minimum !== undefined) notes.push(`≥ ${s.minimum}`);
      if (s.maximum !== undefined && s.maximum < Number.MAX_SAFE_INTEGER) notes.push(`≤ ${s.maximum}`);
      break;
    }
    case 'array': {
      const items = s.items ? typeOf(unwrapNullable(s.items).core) : 'anything';
      if (s.minItems !== undefined && s.minItems > 0) notes.push(`at least ${s.minItems}`);
      return `array of ${items}` + (notes.length ? ` (${notes.join(', ')})` : '');
    }
  }
  return (s.type ?? 'any') + (notes.length ? ` (${notes.join(', ')})` : '');
}

function walk(schema: JsonSchema, prefix: string, out: ProfileField[]): void {
  const required = new Set(schema.required ?? []);
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    const { core, nullable } = unwrapNullable(prop);
    let description = prop.description ?? core.description ?? '';
    const items = core.type === 'array' && core.items ? unwrapNullable(core.items).core : undefined;
    if (items?.description) description = `${description} Each item: ${items.description}`.trim();
    out.push({ path, type: typeOf(core), required: required.has(name), nullable, description });
    if (core.type === 'object' && core.properties) walk(core, path, out);
    if (items?.type === 'object' && items.properties) walk(items, `${path}[]`, out);
  }
}

/** The JSON Schema of the profile, as fixtures/profile.schema.json publishes it (the input side). */
export function profileJsonSchema(): JsonSchema {
  return inputSchemaDocument(profileSchema) as JsonSchema;
}

/** Every field of the profile, parents before children, in the schema's order. */
export function profileFields(): ProfileField[] {
  const out: ProfileField[] = [];
  walk(profileJsonSchema(), '', out);
  return out;
}

export function profileTable(): string {
  const rows = profileFields().map((f) => [
    code(f.path),
    f.type,
    f.required ? 'yes' : 'no',
    f.nullable ? 'yes' : 'no',
    f.description || '—',
  ]);
  return table(['Field', 'Type', 'Required', 'Nullable', 'Description'], rows);
}

// ---------------------------------------------------------------------------------------------------------------
// docs/errors.md: ERRORS
// ---------------------------------------------------------------------------------------------------------------

export function errorsTable(): string {
  const rows = Object.entries(ERRORS as Record<string, ErrorEntry>).map(([name, e]) => [
    code(name),
    `${e.status} ${REASON_PHRASES[e.status] ?? ''}`.trim(),
    e.headers.length ? e.headers.map(code).join(', ') : '—',
    e.shownInSpec ? 'spec' : "reference's choice",
    e.summary,
    e.members?.length ? e.members.map(code).join(', ') : '—',
  ]);
  return table(['Code', 'Status', 'Headers', 'Shown in', 'Summary', 'Extra members'], rows);
}

// ---------------------------------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------------------------
// docs/pipeline.md: the stage table
// ---------------------------------------------------------------------------------------------------------------

const GROUP_ROUTES: Readonly<Record<Group, string>> = {
  public: '`GET /health`, `GET /openapi.json`, `GET /assistant/openapi.json`',
  webhook: '`POST /webhooks/stripe` ([webhook.md](webhook.md))',
  internal: '`POST /internal/...` ([internal-routes.md](internal-routes.md))',
  conversations: 'the assistant conversation operations (`/assistant/conversations…`)',
  operations: 'every other operation of `contract/operations.ts` (under `/v1`)',
};

export function stageTable(): string {
  const groups = Object.keys(GROUP_ROUTES) as Group[];
  return table(
    ['Group', 'Routes', 'Stages, in order'],
    groups.map((g) => [code(g), GROUP_ROUTES[g], stageNames(g).join(' → ')]),
  );
}

export async function generatedDocs(): Promise<GeneratedDoc[]> {
  return [
    ...(await cliSectionBlocks()).map((b) => ({ file: 'docs/cli.md', ...b })),
    { file: 'docs/pipeline.md', source: 'STAGE_TABLE in reference/src/pipeline/groups.ts', block: stageTable() },
    { file: 'docs/cli.md', source: "the commands' definitions in cli/commands/ (scripts/cli-reference.ts)", block: await cliReference() },
    { file: 'docs/configuration.md', source: 'CONFIG_FIELDS in reference/src/config.ts', block: configurationTable() },
    { file: 'docs/profile.md', source: 'profileSchema in contract/profile.ts', block: profileTable() },
    { file: 'docs/errors.md', source: 'ERRORS in contract/errors.ts', block: errorsTable() },
  ];
}

function wrap(doc: GeneratedDoc): string {
  return `${startMarker(doc.name)}\n<!-- Generated from ${doc.source} by scripts/gen-docs.ts: edit the source, then run \`npx tsx scripts/gen-docs.ts\`. -->\n\n${doc.block}\n\n${endMarker(doc.name)}`;
}

/** The text with its generated block replaced; throws when the markers are missing, repeated or out of order. */
export function replaceBlock(text: string, doc: GeneratedDoc): string {
  const [open, close] = [startMarker(doc.name), endMarker(doc.name)];
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < 0 || end < start) throw new Error(`${doc.file}: no ${open} … ${close} block`);
  if (text.indexOf(open, start + 1) >= 0 || text.indexOf(close, end + 1) >= 0) {
    throw new Error(`${doc.file}: more than one generated block${doc.name ? ` "${doc.name}"` : ''}`);
  }
  return text.slice(0, start) + wrap(doc) + text.slice(end + close.length);
}

export interface StaleDoc {
  readonly file: string;
  readonly reason: string;
}

/** The docs whose generated block differs from its source (or cannot be found). Writes nothing. */
export async function checkDocs(root: string = PACKAGE_ROOT): Promise<StaleDoc[]> {
  const stale: StaleDoc[] = [];
  for (const doc of await generatedDocs()) {
    let text: string;
    try {
      text = readFileSync(join(root, doc.file), 'utf8');
    } catch (err) {
      stale.push({ file: doc.file, reason: `cannot be read (${(err as Error).message})` });
      continue;
    }
    try {
      if (replaceBlock(text, doc) !== text)
        stale.push({ file: doc.file, reason: `its generated block${doc.name ? ` "${doc.name}"` : ''} differs from ${doc.source}` });
    } catch (err) {
      stale.push({ file: doc.file, reason: (err as Error).message });
    }
  }
  return stale;
}

/** Rewrites the generated blocks; returns the files that changed. */
export async function writeDocs(root: string = PACKAGE_ROOT): Promise<string[]> {
  const changed: string[] = [];
  for (const doc of await generatedDocs()) {
    const path = join(root, doc.file);
    const text = readFileSync(path, 'utf8');
    const next = replaceBlock(text, doc);
    if (next !== text) {
      writeFileSync(path, next);
      changed.push(doc.file);
    }
  }
  return changed;
}

async function main(argv: readonly string[]): Promise<number> {
  const unknown = argv.filter((a) => a !== '--check');
  if (unknown.length > 0) {
    process.stderr.write(`gen-docs: unknown argument ${unknown[0]}\nusage: npx tsx scripts/gen-docs.ts [--check]\n`);
    return 2;
  }
  if (argv.includes('--check')) {
    const stale = await checkDocs();
    for (const s of stale) process.stderr.write(`gen-docs: ${s.file} is stale: ${s.reason}; run npx tsx scripts/gen-docs.ts\n`);
    if (stale.length === 0) process.stdout.write('gen-docs: generated docs are current\n');
    return stale.length === 0 ? 0 : 1;
  }
  const changed = await writeDocs();
  process.stdout.write(changed.length ? changed.map((f) => `gen-docs: wrote ${f}\n`).join('') : 'gen-docs: nothing to update\n');
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`gen-docs: ${(err as Error).message}\n`);
    process.exitCode = 2;
  }
}
