// Every caller that may read a create's row follows its Location (docs/explore.md, "Sequences across callers"): after a
// create that answered 2xx with a Location, the row is read by its own caller (model.ts, END-CONV-2), by every other
// sound caller kind of the same account whose kind the Location's route admits (CALLER_GUARD; the account's data is
// one, PUR-SERVE-4), and by the same kind of the other account, to whom a row under /v1/me never answers (END-ME-2).
// The reads are derived from the step, never part of the plan: a replay and a shrunk sequence make them again. Pure.
import { CALLER_LISTS } from '../../contract/callers.js';
import type { Profile } from '../../contract/profile.js';
import { routeOf } from '../../contract/requests.js';
import type { Answer, Finding } from './exchange.js';
import { callersFor, isSound, kindOfCaller, ownerOf, type Caller, type PlanStep } from './plan.js';

/** One reader of a created row: a caller of the same account, or of the other. */
export interface Reader {
  readonly caller: Caller;
  readonly sameAccount: boolean;
}

/** A reader's GET of the Location, as the runner sent it. */
export interface ReaderAnswer extends Reader {
  readonly answer: Answer;
}

const KINDS = ['customer', 'delegated', 'invited', 'assistant'] as const;

/** The path a Location names, relative to the base URL's own path (a deployment behind a prefix). */
function pathOf(location: string, baseUrl: string): string | undefined {
  const base = new URL(`${baseUrl.replace(/\/$/, '')}/`);
  const url = new URL(location, base);
  const prefix = base.pathname.replace(/\/$/, '');
  return url.origin === base.origin && url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length) : undefined;
}

/**
 * The readers of the row a create made: none unless a sound caller of an account created it and its Location names a
 * row read of the contract (its caller list is then known).
 */
export function readersOf(p: PlanStep, location: string, o: { profile: Profile; baseUrl: string }): Reader[] {
  const account = /^account:([ab])$/.exec(ownerOf(p.caller) ?? '')?.[1];
  if (account === undefined || !isSound(p.caller) || p.mutation !== undefined) return [];
  const path = pathOf(location, o.baseUrl);
  const read = path === undefined ? undefined : routeOf('GET', path);
  // A Location naming a collection (a list read, no path id) names no row of its own: nobody reads "the row".
  if (read === undefined || !read.path.includes('{')) return [];
  const admitted = CALLER_LISTS[read.callers].members as readonly string[];
  const available = new Set<string>(callersFor(o.profile));
  const other = account === 'a' ? 'b' : 'a';
  const mine = KINDS.map((k) => `${k}:${account}`).filter((c) => c !== p.caller && available.has(c) && admitted.includes(kindOfCaller(c)!));
  const readers: Reader[] = mine.map((caller) => ({ caller: caller as Caller, sameAccount: true }));
  // The same kind of the other account, where the row is account data (END-ME-2 is about rows under /v1/me).
  const theirs = `${p.caller.split(':')[0]}:${other}`;
  if (path!.startsWith('/v1/me/') && available.has(theirs)) readers.push({ caller: theirs as Caller, sameAccount: false });
  return readers;
}

const is2xx = (s: number) => s >= 200 && s < 300;

/** The findings of the readers' answers: a caller of the account refused its row, or another account served it. */
export function judgeReaders(p: PlanStep, readers: readonly ReaderAnswer[], index: number): Finding[] {
  const out: Finding[] = [];
  for (const r of readers) {
    // A budget spent is no answer about the row (the read is judged on the rules of every response elsewhere).
    if (r.answer.status === 429) continue;
    if (r.sameAccount && !is2xx(r.answer.status))
      out.push({
        oracle: 'model',
        clauses: ['PUR-SERVE-4', 'END-CONV-2'],
        message: `the Location of a row ${p.caller} made (${p.op}) does not answer ${r.caller}, a caller of the same account`,
        index,
        expected: '2xx',
        actual: r.answer.status,
      });
    if (!r.sameAccount && is2xx(r.answer.status))
      out.push({
        oracle: 'model',
        clauses: ['END-ME-2'],
        message: `the Location of a row ${p.caller} made (${p.op}) answers ${r.caller}, a caller of the other account`,
        index,
        expected: 'a refusal',
        actual: r.answer.status,
      });
  }
  return out;
}
