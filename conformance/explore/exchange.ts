// The records `shop-conformance explore` passes between its parts (docs/explore.md): one step of a generated sequence,
// the answer a deployment gave it, and a finding. Data only; the runner, the oracles and the replay share them.
import type { ProofShape } from './proofs-shape.js';

/** Who a step is sent as: a caller kind the suite can mint, a forged or defective credential, or nobody. */
export type StepCaller = string;

/** One request of a sequence, before credentials are attached (they are minted afresh on every send and replay). */
export interface Step {
  /** The contract's operation id (contract/operations.ts), or `raw` for a request outside the contract. */
  operationId: string;
  method: string;
  /** The path as sent, path parameters filled in. */
  path: string;
  caller: StepCaller;
  /** Headers the step sets itself (credentials excluded), lower-case names; a repeated header as several values. */
  headers: Record<string, string | string[]>;
  /** The JSON body, or raw text when the step sends something that is not JSON. */
  body?: { json: unknown } | { text: string; contentType?: string };
  /** What the step mutated into the negative space, for the report (for example `quantity: wrong type`). */
  mutation?: string;
  /**
   * Derived from the plan, not a step of it (observers.ts): a read after a write by another caller of the account, or
   * the other account's row a step names, made first.
   */
  observer?: true;
  /** Of a shaped token (tokens.ts): the variation of the caller's token the step presents. */
  token?: string;
  /**
   * Of a shaped DPoP proof (proofs.ts): the shape planned and its description; once sent, the shape as it went out (a
   * replay with nothing to resend is a fresh proof) and whether the session held a nonce the deployment gave it.
   */
  proof?: { shape: ProofShape; described: string; sent?: ProofShape; nonceAsked?: boolean };
  /** Of a shaped guest session (sessions.ts) or invited-agent context (contexts.ts): the variation the step presents. */
  session?: string;
  context?: string;
  /** Of a generated body (bodies.ts): the valid body it was made from, which what the spec pins of it depends on. */
  generatedFrom?: unknown;
}

/** A deployment's answer to a step, as the oracles read it. */
export interface Answer {
  /** 0 when no answer came (its text says why: world.ts). */
  status: number;
  /** Lower-case names; a repeated header joined with ", " as fetch does. */
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON, or undefined. */
  json?: unknown;
}

export type Oracle = 'model' | 'differential' | 'schema' | 'concurrency';

/** A divergence from what the spec pins, found at step `index` of a sequence. */
export interface Finding {
  oracle: Oracle;
  /** The clause IDs the differing projection belongs to (contract/clauses). */
  clauses: string[];
  /** One sentence a person can act on. */
  message: string;
  /** Index of the step in the sequence whose answer diverged. */
  index: number;
  expected?: unknown;
  actual?: unknown;
}
