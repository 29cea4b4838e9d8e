// "Nothing changed" and "something changed" between two reads of one resource, judged without knowing its members. The spec
// shows no record's fields, so a conforming server may put members in a representation that change on every response (the
// time it was served, a trace id) while the resource stays the same. A baseline is the resource read twice with nothing in
// between: the members that differ between those two reads are that server's noise. A later read is unchanged when it
// differs from the first read in noise only. A real change (a line added, a status moved) does not show between the two
// baseline reads, so it is still seen.
import { fail } from './assert.js';

/** What a comparison looks at: the parsed JSON body when there is one, else the text. */
export interface Representation {
  status: number;
  body: unknown;
  text?: string;
}

export interface Baseline<R extends Representation = Representation> {
  first: R;
  /** JSON Pointers (RFC 6901) of the members that differed between the two reads; everything under them is noise too. */
  noise: readonly string[];
}

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * JSON Pointers of the places where `a` and `b` differ: objects member by member (a member on one side only differs at its
 * own pointer), arrays item by item (another length differs at the array), anything else by value. Member order is not a
 * difference; item order is.
 */
export function jsonDifferences(a: unknown, b: unknown, at = ''): string[] {
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((k) =>
      Object.hasOwn(a, k) && Object.hasOwn(b, k) ? jsonDifferences(a[k], b[k], `${at}/${escape(k)}`) : [`${at}/${escape(k)}`],
    );
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return [at];
    return a.flatMap((item, i) => jsonDifferences(item, b[i], `${at}/${i}`));
  }
  return Object.is(a, b) ? [] : [at];
}

/**
 * How far apart a baseline's two reads are taken: a served-at time of millisecond resolution then differs between them,
 * and shows as the noise it is (two reads within one millisecond would leave it to look like a change later).
 */
export const BASELINE_GAP_MS = 5;

/** A baseline of the resource `read` answers: read twice, BASELINE_GAP_MS apart, with nothing else in between. */
export async function readBaseline<R extends Representation>(read: () => Promise<R>): Promise<Baseline<R>> {
  const first = await read();
  await new Promise((resolve) => setTimeout(resolve, BASELINE_GAP_MS));
  return baselineOf(first, await read());
}

const valueOf = (r: Representation): unknown => (r.body !== undefined ? r.body : (r.text ?? ''));

/**
 * Two reads of one resource with nothing in between (`second` right after `first`, same request). Two reads answered with
 * different statuses leave nothing comparable but the status: the whole body is noise then (a check is never failed on
 * the strength of a flapping read).
 */
export function baselineOf<R extends Representation>(first: R, second: Representation): Baseline<R> {
  const noise = first.status === second.status ? jsonDifferences(valueOf(first), valueOf(second)) : [''];
  return { first, noise };
}

const covered = (pointer: string, noise: readonly string[]) => noise.some((n) => pointer === n || pointer.startsWith(`${n}/`));

/** Where `later` differs from the baseline's first read, noise left out; `status` when the statuses differ. */
export function changesFrom(baseline: Baseline, later: Representation): string[] {
  if (later.status !== baseline.first.status) return ['status'];
  return jsonDifferences(valueOf(baseline.first), valueOf(later)).filter((p) => !covered(p, baseline.noise));
}

const ignoring = (baseline: Baseline) =>
  baseline.noise.length ? ` (ignoring members that differ between two reads of the unchanged resource: ${baseline.noise.join(', ')})` : '';

/** Fails unless `later` is the baseline's resource unchanged: the same status, and a body that differs in noise only. */
export function expectUnchanged(baseline: Baseline, later: Representation, { what, clause }: { what: string; clause?: string }): void {
  const changes = changesFrom(baseline, later);
  if (changes.length > 0) {
    fail(
      `${what}: unchanged, but it differs at ${changes.slice(0, 5).join(', ')}${ignoring(baseline)}`,
      { status: baseline.first.status, body: valueOf(baseline.first) },
      { status: later.status, body: valueOf(later) },
      { clause },
    );
  }
}

/** Fails when `later` differs from the baseline in noise only (a change was expected). */
export function expectChanged(baseline: Baseline, later: Representation, { what, clause }: { what: string; clause?: string }): void {
  if (changesFrom(baseline, later).length === 0) fail(`${what}${ignoring(baseline)}`, 'changed', 'unchanged', { clause });
}
