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
 * Counts the structure of UTF-8 JSON text fed to it chunk by chunk, so that a body over a bound is refused at the chunk
 * that crosses it, before the rest arrives. Counts structure outside strings only; it does not check the syntax (the
 * parser that runs next does), so on malformed text its counts are approximate, never unbounded. Multi-byte UTF-8
 * sequences never contain the bytes it looks for, so a chunk may end anywhere.
 */
export class BoundScanner {
  private depth = 0;
  private values = 0;
  /** Just after an opening bracket: the next token, unless it closes the container, is its first value. */
  private first = false;
  private inString = false;
  private escaped = false;
  constructor(private readonly bounds: JsonBounds = JSON_BOUNDS) {}

  /** The first bound the text so far goes over, or undefined. */
  push(bytes: Uint8Array): JsonBound | undefined {
    const { maxDepth, maxValues } = this.bounds;
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
        continue;
      }
      if (isSpace(c)) continue;
      if (this.first && !isClose(c)) {
        this.first = false;
        if (++this.values > maxValues) return 'values';
      }
      if (c === QUOTE) this.inString = true;
      else if (isOpen(c)) {
        if (++this.depth > maxDepth) return 'depth';
        this.first = true;
      } else if (isClose(c)) {
        this.depth--;
        this.first = false;
      } else if (c === COMMA && this.depth > 0) {
        if (++this.values > maxValues) return 'values';
      }
    }
    return undefined;
  }
}

/** The first bound `bytes` (a whole UTF-8 JSON text) goes over, or undefined. */
export const exceededBound = (bytes: Uint8Array, bounds: JsonBounds = JSON_BOUNDS): JsonBound | undefined =>
  new BoundScanner(bounds).push(bytes);

/** The error type the decoder gives a body over a bound (as body-parser types its errors); the boundary answers 400. */
export const JSON_BOUNDS_EXCEEDED = 'entity.bounds.exceeded';

/** The `detail` of the 400 `invalid_json` for a body over a bound. */
export const boundDetail = (bound: JsonBound, bounds: JsonBounds = JSON_BOUNDS): string =>
  bound === 'depth'
    ? `The JSON body is nested deeper than the depth bound of ${bounds.maxDepth} (objects and arrays).`
    : `The JSON body holds more than the bound of ${bounds.maxValues.toLocaleString('en-US')} values (object members and array elements).`;
