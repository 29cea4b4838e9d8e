// The symbolic body shapes of `explore` (bodies.ts): their types and the constants they are drawn from. Data only; a
// shape is JSON-serialisable, as replay files store it.
import { LIMITS } from '../../contract/limits.js';

/** JSON number texts: negative, float where an integer is likely, beyond double range, beyond double precision. */
export const NUMBER_TEXTS = [
  '0',
  '-1',
  '-0',
  '1.5',
  '1e-7',
  '1E2',
  '1e400',
  '-1e400',
  '9007199254740993',
  '1000000000000000000000000000000',
] as const;
export type NumberText = (typeof NUMBER_TEXTS)[number];

/** Short strings: empty, non-ASCII (written as is, or with `\u` escapes), a lone surrogate escape, digits. */
export const STRING_KINDS = ['empty', 'unicode', 'unicode-escaped', 'lone-surrogate', 'digits'] as const;
export type StringKind = (typeof STRING_KINDS)[number];

/** Lengths of long ASCII strings: at and one past the bounds of the recovery fields (spec, Limits), and far past them. */
export const LONG_LENGTHS = [
  LIMITS.recoveryOperationIdChars.max,
  LIMITS.recoveryOperationIdChars.max + 1,
  LIMITS.recoverySubjectChars.max,
  LIMITS.recoverySubjectChars.max + 1,
  10_000,
] as const;

/** Nesting depths of a deeply nested value (RFC 8259 §9 lets a parser limit depth, and names no minimum). */
export const DEPTHS = [16, 64, 1000, 5000] as const;

/** Tokens that look like JSON values and are not (RFC 8259 §3, §6). */
export const BAD_TOKENS = ['NaN', 'Infinity', 'undefined', '01', '.5', '+1', '0x10', "'x'", 'True'] as const;
export type BadToken = (typeof BAD_TOKENS)[number];

/** Names of an added member: plain, a new email or a provider command (recovery), prototype keys, the empty name. */
export const UNKNOWN_NAMES = ['unexpected', 'email', 'command', '__proto__', 'constructor', ''] as const;
export type UnknownName = (typeof UNKNOWN_NAMES)[number];

/** Whitespace: JSON's own four characters (RFC 8259 §2), a byte order mark, and characters JSON does not count as space. */
export const WHITESPACES = ['json', 'bom', 'nbsp', 'form-feed', 'vertical-tab', 'line-separator'] as const;
export type Whitespace = (typeof WHITESPACES)[number];
export const SPACE_PLACES = ['lead', 'trail', 'inside'] as const;

/** Ways to break the JSON text itself. */
export const BREAKS = ['trailing-comma', 'comment', 'truncated', 'two-texts', 'raw-control', 'single-quotes', 'unquoted-key'] as const;
export type Break = (typeof BREAKS)[number];

/** Sizes in bytes around the request body cap (spec, Limits: 256 KiB). */
export const SIZES = ['cap-1', 'cap', 'cap+1'] as const;
export type Size = (typeof SIZES)[number];
export const SIZE_BYTES: Readonly<Record<Size, number>> = {
  'cap-1': LIMITS.requestBodyBytes - 1,
  cap: LIMITS.requestBodyBytes,
  'cap+1': LIMITS.requestBodyBytes + 1,
};

/** A JSON value put in place of the body or of a member (`swap` and `wrap` are made from the value they replace). */
export type BodyValue =
  | { readonly kind: 'null' }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'number'; readonly text: NumberText }
  | { readonly kind: 'string'; readonly of: StringKind }
  | { readonly kind: 'long-string'; readonly length: number }
  /** A number written as a string, a string as a number (its digits, else 1), anything else as its JSON in a string. */
  | { readonly kind: 'swap' }
  /** `[]`, or `[the value]`. */
  | { readonly kind: 'array'; readonly of: 'empty' | 'wrap' }
  /** `{}`, or `{"value": the value}`. */
  | { readonly kind: 'object'; readonly of: 'empty' | 'wrap' }
  | { readonly kind: 'deep'; readonly container: 'array' | 'object'; readonly depth: number }
  | { readonly kind: 'bad-token'; readonly token: BadToken };

/**
 * One change to a valid body. Members are chosen by index among the valid body's own members (modulo their number), so a
 * shape resolves on any deployment's body; on a body that is not an object, or has no members, a member step does
 * nothing (an added member is still added to an empty object).
 */
export type BodyStep =
  | { readonly op: 'top'; readonly value: BodyValue }
  | { readonly op: 'member'; readonly index: number; readonly value: BodyValue }
  | { readonly op: 'drop'; readonly index: number }
  /** The member's name in another case (`subject` → `Subject`): a name no schema of a case-sensitive JSON declares. */
  | { readonly op: 'recase'; readonly index: number }
  | { readonly op: 'unknown'; readonly name: UnknownName; readonly value: BodyValue }
  /** The member written a second time, right after itself, with this value: `{"a":1,"a":2}`. */
  | { readonly op: 'duplicate'; readonly index: number; readonly value: BodyValue }
  /** Padded with trailing JSON spaces to exactly this many bytes (after every other step). */
  | { readonly op: 'size'; readonly bytes: Size }
  /** Whitespace before the text, after it, or after every `{`, `[`, `,` and `:`. */
  | { readonly op: 'space'; readonly ws: Whitespace; readonly where: (typeof SPACE_PLACES)[number] }
  | { readonly op: 'broken'; readonly how: Break };

/**
 * A generated body: one step, or a combination of two. Steps on the structure apply in order, then the breaks, then the
 * spaces, then the size (the last size step wins).
 */
export interface BodyShape {
  readonly steps: readonly BodyStep[];
}
