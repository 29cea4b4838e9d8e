// The clause catalogue: every normative statement of the spec (../shared/spec/service-spec.md), in its nine parts, with a
// stable ID, a one-line paraphrase precise enough to test against, its severity, and, only where a black box (HTTP plus the
// profile) cannot observe it, why not. Data only; the one piece of logic is the lookup map at the end.
//
// IDs are stable: never renumber. A clause the spec drops is removed, not reused; a new one takes the next free number.
// Where the spec repeats a requirement (e.g. "Creates use 201 with Location" in Versioning), the first statement holds the
// clause and the repetition gets none; repetitions catalogued before that rule keep their IDs as aliases (`repeats`).
// Statements the spec marks "not shown" are left open and get no clause.

import { PURPOSE } from './parts/01-purpose.js';
import { RESOURCES } from './parts/02-resources.js';
import { STATES } from './parts/03-states.js';
import { ENDPOINTS } from './parts/04-endpoints.js';
import { AUTHENTICATION } from './parts/05-authentication.js';
import { EVENTS } from './parts/06-events.js';
import { ERRORS } from './parts/07-errors.js';
import { LIMITS } from './parts/08-limits.js';
import { VERSIONING } from './parts/09-versioning.js';

export type SpecPart = 'purpose' | 'resources' | 'states' | 'endpoints' | 'authentication' | 'events' | 'errors' | 'limits' | 'versioning';

export interface Clause {
  /** Stable, `<PART PREFIX>-<SECTION>-<n>`, e.g. 'AUTH-GUEST-3'. */
  readonly id: string;
  readonly part: SpecPart;
  /** The spec heading it comes from, e.g. 'Authentication > Guest sessions'. */
  readonly section: string;
  /** One-line paraphrase of the requirement, precise enough to test against. */
  readonly text: string;
  readonly severity: 'MUST' | 'SHOULD';
  /** Only when a black box (HTTP + profile only) cannot observe it: why. */
  readonly notTestable?: string;
  /**
   * The clauses this one repeats: the spec states the requirement twice (typically once where it belongs and again in the
   * Limits or Errors tables). IDs stay stable, so the repetition keeps its ID as an alias: its verdict follows the checks
   * of both, and the self-test needs no defect of its own for it.
   */
  readonly repeats?: readonly string[];
}

export const PART_PREFIX: Readonly<Record<SpecPart, string>> = {
  purpose: 'PUR',
  resources: 'RES',
  states: 'STA',
  endpoints: 'END',
  authentication: 'AUTH',
  events: 'EVT',
  errors: 'ERR',
  limits: 'LIM',
  versioning: 'VER',
};

/** Every clause, in the spec's order: the nine parts, one file each (contract/clauses/parts/). */
export const CLAUSES: readonly Clause[] = [
  ...PURPOSE,
  ...RESOURCES,
  ...STATES,
  ...ENDPOINTS,
  ...AUTHENTICATION,
  ...EVENTS,
  ...ERRORS,
  ...LIMITS,
  ...VERSIONING,
];

export const CLAUSES_BY_ID: ReadonlyMap<string, Clause> = new Map(CLAUSES.map((c) => [c.id, c]));
