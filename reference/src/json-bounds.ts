// Bounds on a JSON request body, checked by one linear pass over its bytes before anything parses it (docs/errors.md,
// docs/reference-choices.md): a body within the 256 KiB cap can still hold 125,000 nested arrays or tens of thousands of
// members, whose parsed form costs megabytes of heap, before the token is even checked. Pure; never imports Express.

export const JSON_BOUNDS = Object.freeze({
  /** Objects and arrays nested in one another, the outermost counting 1. */
  maxDepth: 32,
  /** Object members and array elements in the whole body, at every depth. */
  maxValues: 10_000,
});

export type JsonBound = 'depth' | 'values';
export interface JsonBounds {
  maxDepth: number;
  maxValues: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const isOpen = (c: number) => c === 0x5b || c === 0x7b; // [ {
const isClose = (c: number) => c === 0x5d || c === 0x7d; // ] }
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * The first bound `bytes` (UTF-8 JSON text) goes over, or undefined. Counts structure outside strings only; it does not
 * check the syntax (the parser that runs next does), so on malformed text its counts are approximate, never unbounded.
 * Multi-byte UTF-8 sequences never contain the bytes it looks for.
 */
export function exceededBound(bytes: Uint8Array, bounds: JsonBounds = JSON_BOUNDS): JsonBound | undefined {
  let depth = 0;
  let values = 0;
  // Just after an opening bracket: the next token, unless it closes the container, is its first value.
  let first = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (isSpace(c)) continue;
    if (first && !isClose(c)) {
      first = false;
      if (++values > bounds.maxValues) return 'values';
    }
    if (c === QUOTE) {
      // Skip the string: up to the next quote not escaped.
      for (i++; i < bytes.length && bytes[i] !== QUOTE; i++) if (bytes[i] === BACKSLASH) i++;
    } else if (isOpen(c)) {
      if (++depth > bounds.maxDepth) return 'depth';
      first = true;
    } else if (isClose(c)) {
      depth--;
      first = false;
    } else if (c === COMMA && depth > 0) {
      if (++values > bounds.maxValues) return 'values';
    }
  }
  return undefined;
}

/** The error type the decoder gives a body over a bound (as body-parser types its errors); the boundary answers 400. */
export const JSON_BOUNDS_EXCEEDED = 'entity.bounds.exceeded';

/** The `detail` of the 400 `invalid_json` for a body over a bound. */
export const boundDetail = (bound: JsonBound, bounds: JsonBounds = JSON_BOUNDS): string =>
  bound === 'depth'
    ? `The JSON body is nested deeper than the depth bound of ${bounds.maxDepth} (objects and arrays).`
    : `The JSON body holds more than the bound of ${bounds.maxValues.toLocaleString('en-US')} values (object members and array elements).`;
