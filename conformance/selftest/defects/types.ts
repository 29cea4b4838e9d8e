// A defect: one subtle break of one clause, applied by the self-test's proxy in front of a target. Data first (id, clause,
// description, kind); `rules` is what the proxy does. Wire defects rewrite answers; leniency defects emulate a server that
// accepts what it must refuse, by repairing the request before it goes upstream (the suite holds the profile's keys).
// Configuration defects break a clause about what an operator configures (the wire never shows it): the deployment is
// configured against the clause and its profile says so.
import type { Profile } from '../../../contract/profile.js';
import type { Minter } from '../../lib/mint.js';
import type { ProxyAnswer, ProxyRequest, ProxyRules } from '../proxy.js';
import { notAStream } from './helpers.js';

export interface DefectContext {
  readonly profile: Profile;
  readonly mint: Minter;
  /** A request straight to the target behind the proxy, for a stateful defect that prepares what it then shows. */
  readonly send?: (req: { method: string; path: string; headers: Record<string, string>; body?: string }) => Promise<{
    status: number;
    body: string;
  }>;
  /** The target behind the proxy (its base path places the contract's route templates). */
  readonly target?: string;
}

export interface Defect {
  /** Stable id, `<part>.<what breaks>`. */
  readonly id: string;
  /** The clause of contract/clauses/catalogue.ts it breaks: the checks citing it must fail. */
  readonly clause: string;
  readonly description: string;
  readonly kind: 'wire' | 'leniency' | 'configuration';
  /** What the proxy does. */
  readonly rules: (ctx: DefectContext) => ProxyRules;
  /**
   * Configuration defects: the profile of a deployment configured against the clause. The self-test starts the embedded
   * reference from it (or, against a deployment of one's own, hands it to the clause's checks with that deployment).
   */
  readonly configure?: (p: Profile) => Profile;
  /**
   * Set when the break is judged at the reference level only: at the spec level it looks like a conforming deployment's
   * choice (the reason says which), so `self-test --level spec` sets the defect aside.
   */
  readonly referenceOnly?: string;
  /** A narrowed variant (selftest/scoped.ts): the broad defect's id and the one cell its break applies to. */
  readonly scope?: { readonly of: string; readonly cell: string };
}

export const misconfigured = (id: string, clause: string, description: string, configure: (p: Profile) => Profile): Defect => ({
  id,
  clause,
  description,
  kind: 'configuration',
  rules: () => ({}),
  configure,
});

/** The defect, judged at the reference level only, for the reason given (see Defect.referenceOnly). */
export const referenceOnly = (d: Defect, why: string): Defect => ({ ...d, referenceOnly: why });

export const wire = (
  id: string,
  clause: string,
  description: string,
  response: (a: ProxyAnswer, r: ProxyRequest) => ProxyAnswer,
): Defect => ({
  id,
  clause,
  description,
  kind: 'wire',
  rules: () => ({ buffer: notAStream, response }),
});

/** A wire defect whose rewrite needs the profile (problem types under its docsUrl, its client ids). */
export const wireWith = (
  id: string,
  clause: string,
  description: string,
  response: (ctx: DefectContext) => (a: ProxyAnswer, r: ProxyRequest) => ProxyAnswer,
): Defect => ({
  id,
  clause,
  description,
  kind: 'wire',
  rules: (ctx) => ({ buffer: notAStream, response: response(ctx) }),
});

export const lenient = (id: string, clause: string, description: string, rules: (ctx: DefectContext) => ProxyRules): Defect => ({
  id,
  clause,
  description,
  kind: 'leniency',
  rules,
});
