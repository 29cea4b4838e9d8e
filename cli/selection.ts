// What a run selects, judged before anything starts (no reference, no doctor, no report touched): a selection that
// matches no check, an unknown clause or check id, a --grep that is not a regular expression is a usage error naming
// the option. The suite's check list (Playwright's --list) is read once, and only when the run selects or gates.
import { CLAUSES_BY_ID } from '../contract/clauses/index.js';
import type { CheckListing } from '../conformance/engine/runner/list.js';

export interface Selection {
  grep?: string | undefined;
  clause?: string[] | undefined;
  repro?: string | undefined;
  level: 'spec' | 'reference';
}

export class SelectionError extends Error {
  override name = 'SelectionError';
}

/** Playwright's reading of a --grep pattern (`/re/flags` or a case-insensitive pattern); throws when it is none. */
export function grepRegExp(pattern: string): RegExp {
  const m = /^\/(.*)\/([gi]*)$/.exec(pattern);
  // Without Playwright's `g`: a global RegExp's test() carries its position from one check to the next.
  return m ? new RegExp(m[1]!, m[2]!.replace('g', '')) : new RegExp(pattern, 'i');
}

/** The option a selection error names: the last one that narrowed the selection to nothing. */
const optionOf = (s: Selection) => (s.repro !== undefined ? '--repro' : s.grep !== undefined ? '--grep' : '--clause');

/** The checks the selection runs (before --shard); throws a SelectionError naming the option when it is wrong or empty. */
export function selectChecks(s: Selection, checks: readonly CheckListing[]): CheckListing[] {
  if (s.grep !== undefined) {
    try {
      grepRegExp(s.grep);
    } catch (err) {
      throw new SelectionError(`--grep: not a regular expression: ${(err as Error).message}`);
    }
  }
  const unknown = (s.clause ?? []).filter((id) => !CLAUSES_BY_ID.has(id));
  if (unknown.length > 0)
    throw new SelectionError(`--clause: ${unknown.join(', ')}: not a clause of the catalogue (shop-conformance clauses lists them)`);
  if (s.repro !== undefined && !checks.some((c) => c.id === s.repro))
    throw new SelectionError(`--repro: no check has the id ${s.repro} (shop-conformance run --list shows them)`);
  const clauses = new Set(s.clause ?? []);
  const grep = s.grep === undefined ? undefined : grepRegExp(s.grep);
  const matching = checks.filter(
    (c) =>
      (s.repro === undefined || c.id === s.repro) &&
      (clauses.size === 0 || c.clauses.some((id) => clauses.has(id))) &&
      (grep === undefined || grep.test(c.grepTitle)),
  );
  const selected = matching.filter((c) => s.level === 'reference' || c.level === 'spec');
  if (selected.length === 0) {
    const why = matching.length > 0 ? " at --level spec (its checks judge the reference's choices: add --level reference)" : '';
    throw new SelectionError(`${optionOf(s)}: no check matches the selection${why} (shop-conformance run --list shows the checks)`);
  }
  return selected;
}
