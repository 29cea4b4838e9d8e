// A body shape (bodies-shape.ts) applied to a valid body: the body as sent. The body is written by this file's own
// serialiser, not by JSON.stringify, because a shape says things JSON.stringify cannot: a member twice, a number beyond
// double range or precision, escapes, whitespace, a byte order mark, an exact size in bytes, text that is not JSON.
// Pure; deterministic (the same valid body and shape give the same bytes).
import { Buffer } from 'node:buffer';
import { SIZE_BYTES, type BodyShape, type BodyStep, type BodyValue, type Break, type StringKind, type Whitespace } from './bodies-shape.js';

/** A JSON text under construction: scalars (and every value a shape writes as is) as their text, containers as trees. */
type Tree =
  | { readonly t: 'raw'; readonly text: string; readonly deep?: true }
  | { readonly t: 'arr'; readonly items: Tree[] }
  | { readonly t: 'obj'; readonly entries: [string, Tree][] };

/** The body as written, and what the writing put in it that the parsed value no longer shows. */
export interface BuiltBody {
  readonly text: string;
  /** An object of the text has a member name twice (RFC 8259 §4: names SHOULD be unique). */
  readonly duplicated: boolean;
  /** The text holds a deeply nested value of a `deep` step. */
  readonly deep: boolean;
  /** A member is named `__proto__` (sent as text, so that no object spread or assignment turns it into a prototype). */
  readonly protoKey: boolean;
}

const raw = (text: string): Tree => ({ t: 'raw', text });

function treeOf(value: unknown): Tree {
  if (Array.isArray(value)) return { t: 'arr', items: value.map(treeOf) };
  if (typeof value === 'object' && value !== null) return { t: 'obj', entries: Object.entries(value).map(([k, v]) => [k, treeOf(v)]) };
  return raw(JSON.stringify(value) ?? 'null');
}

/** Written with JSON's own whitespace (`gap`) after every `{`, `[`, `,` and `:`. */
function render(tree: Tree, gap: string): string {
  if (tree.t === 'raw') return tree.text;
  if (tree.t === 'arr') return `[${gap}${tree.items.map((i) => render(i, gap)).join(`,${gap}`)}]`;
  return `{${gap}${tree.entries.map(([k, v]) => `${JSON.stringify(k)}:${gap}${render(v, gap)}`).join(`,${gap}`)}}`;
}

const UNICODE = 'Zoë · 東京 · 🛒 · עברית';
/** Every character outside printable ASCII as a `\u` escape of its UTF-16 units (an astral one as a surrogate pair). */
const escapeAll = (s: string): string =>
  [...s]
    .map((ch) =>
      /^[\x20-\x7e]$/.test(ch)
        ? ch
        : Array.from({ length: ch.length }, (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
    )
    .join('');
const STRINGS: Readonly<Record<StringKind, string>> = {
  empty: '""',
  unicode: JSON.stringify(UNICODE),
  'unicode-escaped': `"${escapeAll(UNICODE)}"`,
  // Valid JSON grammar, not valid Unicode (RFC 8259 §8.2).
  'lone-surrogate': '"\\ud800x"',
  digits: '"42"',
};

const parses = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** The number/string swap of a written value. */
function swapped(tree: Tree): Tree {
  if (tree.t !== 'raw' || !parses(tree.text)) return raw(JSON.stringify(tree.t === 'raw' ? tree.text : render(tree, '')));
  const parsed: unknown = JSON.parse(tree.text);
  if (typeof parsed === 'number') return raw(JSON.stringify(tree.text));
  if (typeof parsed === 'string') return raw(/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(parsed) ? parsed : '1');
  return raw(JSON.stringify(tree.text));
}

function deep(container: 'array' | 'object', depth: number): Tree {
  const text = container === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
  return { t: 'raw', text, deep: true };
}

/** The value a shape puts in place of `original` (the body, or a member; null for a member that did not exist). */
function valueTree(v: BodyValue, original: Tree): Tree {
  switch (v.kind) {
    case 'null':
      return raw('null');
    case 'boolean':
      return raw(String(v.value));
    case 'number':
      return raw(v.text);
    case 'string':
      return raw(STRINGS[v.of]);
    case 'long-string':
      return raw(JSON.stringify('x'.repeat(v.length)));
    case 'swap':
      return swapped(original);
    case 'array':
      return { t: 'arr', items: v.of === 'empty' ? [] : [original] };
    case 'object':
      return { t: 'obj', entries: v.of === 'empty' ? [] : [['value', original]] };
    case 'deep':
      return deep(v.container, v.depth);
    case 'bad-token':
      return raw(v.token);
  }
}

/** One step on the structure; a member step on a body that is not an object, or has no members, changes nothing. */
function structural(tree: Tree, s: BodyStep): Tree {
  if (s.op === 'top') return valueTree(s.value, tree);
  if (tree.t !== 'obj') return tree;
  const entries = [...tree.entries];
  if (s.op === 'unknown') return { t: 'obj', entries: [...entries, [s.name, valueTree(s.value, raw('null'))]] };
  if (entries.length === 0 || !('index' in s)) return tree;
  const i = s.index % entries.length;
  const [name, original] = entries[i]!;
  if (s.op === 'member') entries[i] = [name, valueTree(s.value, original)];
  else if (s.op === 'drop') entries.splice(i, 1);
  else if (s.op === 'recase')
    entries[i] = [name === name.toLowerCase() ? name.charAt(0).toUpperCase() + name.slice(1) : name.toLowerCase(), original];
  else if (s.op === 'duplicate') entries.splice(i + 1, 0, [name, valueTree(s.value, original)]);
  return { t: 'obj', entries };
}

/** The text broken so that it is not JSON (RFC 8259); where a break finds nothing to break, a stray `}` follows the text. */
function broken(text: string, how: Break): string {
  const out = ((): string => {
    switch (how) {
      case 'trailing-comma':
        return /[}\]]$/.test(text) ? `${text.slice(0, -1)},${text.slice(-1)}` : `${text},`;
      case 'comment':
        return `/* comment */${text}`;
      case 'truncated':
        return text.slice(0, -1);
      case 'two-texts':
        return `${text}\n${text}`;
      case 'raw-control':
        return text.includes('"') ? text.replace('"', '"\u0001') : `${text}"\u0001"`;
      case 'single-quotes':
        return text.replaceAll('"', "'");
      case 'unquoted-key':
        return text.replace(/"((?:[^"\\]|\\.)*)":/, '$1:');
    }
  })();
  return parses(out) ? `${out}}` : out;
}

const SPACES: Readonly<Record<Whitespace, string>> = {
  json: ' \t\r\n',
  bom: '\ufeff',
  nbsp: '\u00a0',
  'form-feed': '\f',
  'vertical-tab': '\v',
  'line-separator': '\u2028',
};

function hasDuplicates(tree: Tree): boolean {
  if (tree.t === 'raw') return false;
  if (tree.t === 'arr') return tree.items.some(hasDuplicates);
  const names = tree.entries.map(([k]) => k);
  return new Set(names).size !== names.length || tree.entries.some(([, v]) => hasDuplicates(v));
}
const some = (tree: Tree, p: (t: Tree, key?: string) => boolean, key?: string): boolean =>
  p(tree, key) ||
  (tree.t === 'arr' && tree.items.some((i) => some(i, p))) ||
  (tree.t === 'obj' && tree.entries.some(([k, v]) => some(v, p, k)));

/**
 * The body as written: the structural steps in order, then the breaks, then whitespace (before, after, or between
 * tokens), then the size: padded with trailing spaces to exactly the size's bytes (a text already longer stays as it is;
 * no generated body comes near the cap before padding).
 */
export function buildBody(valid: unknown, shape: BodyShape): BuiltBody {
  let tree = treeOf(valid);
  for (const s of shape.steps) tree = structural(tree, s);
  const inside = shape.steps.flatMap((s) => (s.op === 'space' && s.where === 'inside' ? [SPACES[s.ws]] : []));
  let text = render(tree, inside.join(''));
  for (const s of shape.steps) if (s.op === 'broken') text = broken(text, s.how);
  for (const s of shape.steps) {
    if (s.op === 'space' && s.where === 'lead') text = SPACES[s.ws] + text;
    if (s.op === 'space' && s.where === 'trail') text = text + SPACES[s.ws];
  }
  const size = shape.steps.filter((s) => s.op === 'size').at(-1);
  if (size) text += ' '.repeat(Math.max(0, SIZE_BYTES[size.bytes] - Buffer.byteLength(text, 'utf8')));
  return {
    text,
    duplicated: hasDuplicates(tree),
    deep: some(tree, (t) => t.t === 'raw' && t.deep === true),
    protoKey: some(tree, (_t, key) => key === '__proto__'),
  };
}

/**
 * The body as sent: `json` where JSON.stringify of it writes exactly these bytes, else the `text` (with its content
 * type, application/json: every shape is sent as a JSON body, whatever its bytes). Deeply nested values and `__proto__`
 * members are always text, so that no caller's stringify or object handling meets them.
 */
export function applyBodyShape(valid: unknown, shape: BodyShape): { json: unknown } | { text: string; contentType?: string } {
  const built = buildBody(valid, shape);
  if (!built.deep && !built.protoKey && parses(built.text)) {
    const json: unknown = JSON.parse(built.text);
    if (JSON.stringify(json) === built.text) return { json };
  }
  return { text: built.text, contentType: 'application/json' };
}
