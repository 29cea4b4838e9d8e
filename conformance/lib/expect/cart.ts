// What a cart read shows of its lines. The spec shows no cart record: a spec-level check observes a cart only through the
// variant ids its text names (an empty cart names none); member names (`lines`) are the reference's, for reference-level
// checks.
import { fail, type ClauseRef } from './failure.js';
import { expectSuccess, type Answer } from './response.js';

/** Whether a body's text names the variant id as a whole (not as a piece of a longer id), in any member or link. */
export function namesVariant(text: string, id: string): boolean {
  const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9_-])${escaped}(?![A-Za-z0-9_-])`).test(text);
}

/** A 2xx cart read whose body names the variant id (any member may carry it). */
export function expectNamesVariant(res: Answer, variant: string, { what, clause }: { what: string; clause: string }): void {
  expectSuccess(res, { what, clause });
  if (!res.text.includes(variant))
    fail(`${what}: the cart names ${variant}`, `a body mentioning ${variant}`, res.text.slice(0, 300), { clause });
}

/** A 2xx cart read whose body names none of the variants (one id, or several such as knownVariantIds()). */
export function expectNotNamesVariant(
  res: Answer,
  variant: string | readonly string[],
  { what, clause }: { what: string; clause: string },
): void {
  expectSuccess(res, { what, clause });
  const found = (typeof variant === 'string' ? [variant] : variant).filter((v) => namesVariant(res.text, v));
  if (found.length > 0)
    fail(`${what}: the cart names no ${found.join(', ')}`, 'no such variant in the body', res.text.slice(0, 300), { clause });
}

/** A cart record (the reference's shape) with no line. */
export function expectEmptyCart(res: Answer, { what, clause }: { what: string; clause: ClauseRef }): void {
  if (!Array.isArray(res.body?.lines) || res.body.lines.length !== 0) fail(what, [], res.body?.lines, { clause });
}
