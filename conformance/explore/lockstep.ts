// One sequence against the target and, in lockstep, the reference (docs/explore.md): each plan step resolved and sent to
// both, the target's answer judged by the model, the differential against the reference's answer, and the schema of the
// target's own documents; the first step with a finding ends the sequence. Also the scheduler-driven interleavings.
import type { Profile } from '../../contract/profile.js';
import type { TlsOptions } from '../engine/transport/http.js';
import { CheckFailure } from '../lib/assert.js';
import type { Answer, Finding, Step } from './exchange.js';
import type { ScenarioRun } from './concurrency.js';
import { createdId, expectedOutcome, newModel, type ModelState } from './model.js';
import { readersOf, type ReaderAnswer } from './readers.js';
import { reusedOf } from './reuse.js';
import { judgeByModel } from './model-judges.js';
import { admittedKinds, COMMANDS_BY_ID, DIFFERENTIAL_COMMANDS } from './commands.js';
import { interleaveOn } from './lockstep-interleave.js';
import type { DifferentialContext } from './projection.js';
import { kindOfCaller, proofDefectOf, type PlanStep } from './plan.js';
import { fixtureOf, newRunContext, World, type RunContext } from './world.js';
import { observerOf, preludeOf } from './observers.js';
import { CoverageMap, type CoverageReport } from './coverage.js';
import { NotDeclared } from '../lib/expect/failure.js';
import type { Target } from '../engine/transport/target.js';

/**
 * Whether the differential compares a step: the contract admits its caller kind on its command (a refusal of any other
 * kind is judged by the rule book, CALLER_GUARD, where the spec shows the list, its code being the deployment's where it
 * does not), and it is no shaped token nor generated body.
 */
// A conditional GET is judged by CONDITIONAL_GET alone (rules/04-endpoints.ts): whether a tag still matches depends on
// what each deployment's tag covers (the stock an operator changed, say), so 304 against 200 is no difference.
const SHAPED: ReadonlySet<string> = new Set(['token-shape', 'body-shape', 'proof-shape', 'session-shape', 'context-shape', 'conditional']);
const compared = (p: PlanStep): boolean => {
  // A shaped token or a generated body is judged from the spec by its own judge (tokens.ts, bodies-judge.ts): what two
  // deployments answer it (status, code, challenge) is not compared.
  if (p.mutation !== undefined && SHAPED.has(p.mutation)) return false;
  // A proof dated an hour off carries the current nonce: a deployment may time it by the nonce and take it
  // (IAT_TIMED_BY_NONCE of the rule book), so its status is no difference either.
  const defect = proofDefectOf(p.caller);
  if (defect === 'stale-iat' || defect === 'future-iat') return false;
  const command = COMMANDS_BY_ID.get(p.op);
  const kind = kindOfCaller(p.caller);
  return command !== undefined && (admittedKinds(command) as readonly string[]).includes(kind ?? '');
};

/** The creates whose row later steps name by path id: an order, an address, a conversation. */
const CREATES: Readonly<Record<string, 'order' | 'address' | 'conversation'>> = {
  checkoutSavedCard: 'order',
  addAddress: 'address',
  openConversation: 'conversation',
};

/** The oracles other than the model, plugged in by the caller (conformance/explore/oracles.ts). */
export interface Oracles {
  /** Compares the spec-pinned projections of the target's and the reference's answers. */
  differential?(step: Step, target: Answer, reference: Answer, index: number, context?: DifferentialContext): Finding[];
  /** Built from the target's own description documents once they are read. */
  schema?(docs: { general: unknown; assistant?: unknown }): { check(step: Step, answer: Answer, index: number): Finding[] };
}

export interface ExploreOptions {
  baseUrl: string;
  tls?: TlsOptions;
  /** A reference deployment run in lockstep (the differential oracle); none: the model and the schema oracles alone. */
  referenceUrl?: string | undefined;
  profile: Profile;
  seed: number;
  budgetMs: number;
  /** Time allowed to shrink the findings, all together (default: the budget, at least 30 s). */
  shrinkMs?: number;
  maxCommands?: number;
  /** End at the first finding, once shrunk (the bench's defects: found or not), instead of exploring the whole budget. */
  stopAtFirst?: boolean;
  oracles?: Oracles;
  log?: (line: string) => void;
}

/** A sequence as run: its plan (what a replay resolves again), the requests sent to the target, what was found. */
export interface Sequence {
  seed: number;
  /** Set when the finding came from the concurrent interleavings (concurrency.ts): a replay runs them again. */
  interleavings?: true;
  /** Of an interleavings finding: the indices of `steps` sent at once. */
  parallel?: number[][];
  /** Of an interleavings finding: the scenario, its size and its release order, as shrunk (what a replay reruns). */
  concurrency?: ScenarioRun;
  /** Requests of the sequence as first found, before shrinking. */
  original?: number;
  plans: PlanStep[];
  steps: Step[];
  answers: Answer[];
  findings: Finding[];
}

export interface ExploreResult {
  runs: number;
  steps: number;
  ms: number;
  /** Every distinct finding (by oracle and clauses), each as its shrunk sequence, in the order found; empty: none. */
  failures: Sequence[];
  /** What the target's requests reached (coverage.ts); absent for a replay. */
  coverage?: CoverageReport;
}

/** What one sequence runs against: the target, the lockstep reference, the oracles. */
export class Lockstep {
  readonly target: World;
  readonly reference: World | undefined;
  private schema: ReturnType<NonNullable<Oracles['schema']>> | undefined;
  private described: Target | undefined;
  /** What the target's requests reached (coverage.ts). */
  readonly coverage: CoverageMap;
  steps = 0;

  constructor(private readonly o: Pick<ExploreOptions, 'baseUrl' | 'tls' | 'referenceUrl' | 'profile' | 'oracles'>) {
    this.target = new World(o.baseUrl, o.profile, fixtureOf(o.profile), o.tls);
    this.coverage = new CoverageMap(o.profile, o.baseUrl);
    // The embedded reference holds the fixture seed, whatever data the target's profile declares, and reads the reference's
    // own conventions (header names, credential formats, the browser session's carrier): each world resolves a plan step
    // itself, so the reference is sent the step in its conventions, as `run` translates them for the target.
    const own = { ...o.profile, data: undefined, conventions: undefined };
    this.reference = o.referenceUrl ? new World(o.referenceUrl, own, fixtureOf(own)) : undefined;
  }

  /** Reads the description documents of both deployments (a failure is the document's finding, as in `run`). */
  async prepare(): Promise<Finding[]> {
    try {
      await this.target.described();
      await this.reference?.described();
    } catch (err) {
      if (err instanceof CheckFailure) return [{ oracle: 'model', clauses: [...err.clauses], message: err.message, index: -1 }];
      throw err;
    }
    this.described = await this.target.described();
    const docs = this.target.documents();
    if (docs && this.o.oracles?.schema) this.schema = this.o.oracles.schema(docs);
    return [];
  }

  /**
   * Whether the differential compares a command (commands.ts DIFFERENTIAL_COMMANDS), and the target and the reference
   * serve it at the same route: the conversation routes are the deployment's (not shown), and where the target's differ,
   * what each answers is not compared (the model still judges).
   */
  private async sameRoute(op: string): Promise<boolean> {
    if (!this.reference || !DIFFERENTIAL_COMMANDS.has(op)) return false;
    if (COMMANDS_BY_ID.get(op)?.group !== 'conversation') return true;
    const [t, r] = [(await this.target.described()).operation(op), (await this.reference.described()).operation(op)];
    return t.method === r.method && t.path === r.path;
  }

  /** The other account's fixture rows (its address, its saved card), which no read of this caller's account may show. */
  private foreignIds(caller: string): string[] {
    const other = this.target.fixture.accounts[caller.endsWith(':b') ? 'a' : 'b'];
    return [other.address, other.card];
  }

  /** The scopes the target's documents declare an operation needs (undefined: none named, or not read yet). */
  private declaredScopes(operationId: string): readonly string[] | undefined {
    return this.described?.has(operationId) ? this.described.securityScopes(operationId) : undefined;
  }

  private worlds(): World[] {
    return this.reference ? [this.target, this.reference] : [this.target];
  }

  /**
   * The state a sequence starts from, on every deployment: both accounts' carts emptied, and the addresses the previous
   * sequence added deleted (an account may hold only so many).
   */
  private async setUp(ctx: RunContext): Promise<void> {
    // The deployments, and the two accounts within each, share nothing: they are emptied at once. One cart's requests go
    // in turn (a deployment may refuse concurrent changes of one cart).
    await Promise.all(
      this.worlds().map(async (w) => {
        const added = w.rows.address;
        w.reset();
        await Promise.all(
          (['a', 'b'] as const).map(async (account) => {
            const caller = `customer:${account}`;
            for (const id of added[account])
              await w.send(
                { operationId: 'deleteAddress', method: 'DELETE', path: `/v1/me/addresses/${encodeURIComponent(id)}`, caller, headers: {} },
                ctx,
              );
            for (const v of w.fixture.variants)
              await w.send(
                { operationId: 'removeCartItem', method: 'DELETE', path: `/v1/cart/items/${encodeURIComponent(v)}`, caller, headers: {} },
                ctx,
              );
          }),
        );
      }),
    );
  }

  /** A new sequence from emptied carts and new guest carts. */
  async begin(seed: number): Promise<Session> {
    const ctx = newRunContext(this.o.profile);
    await this.setUp(ctx);
    const model = newModel();
    for (const owner of ['account:a', 'account:b', 'guest:a', 'guest:b']) model.carts.set(owner, new Set());
    const seq: Sequence = { seed, plans: [], steps: [], answers: [], findings: [] };
    return {
      seq,
      exec: async (p) => {
        seq.plans.push(p);
        // A retry sends the step twice; a rekey then once more under the same key with another body (rekey.ts); a reuse
        // once more with the first send's credential (reuse.ts).
        const reused = reusedOf(p);
        const sends = [
          ...(p.repeat ? [p, p] : [p]),
          ...(p.rekey ? [{ ...p, rekey: undefined, altered: true }] : []),
          ...(reused ? [reused] : []),
        ];
        for (const send of sends) {
          // Another account's row the step names, made first when the sequence has none (observers.ts).
          const prelude = preludeOf(send, (account) => this.worlds()[0]!.rows.address[account].length, this.o.profile);
          const findings = prelude ? await this.step(prelude, model, ctx, seq) : [];
          if (prelude && seq.steps.at(-1)) seq.steps.at(-1)!.observer = true;
          if (findings.length === 0) findings.push(...(await this.step(send, model, ctx, seq)));
          // The list the write changed, read at once by another caller of the account (observers.ts).
          const observer =
            findings.length === 0 ? observerOf(send, seq.answers.at(-1)?.status ?? 0, this.o.profile, seq.steps.length) : undefined;
          if (observer) {
            const seen = await this.step(observer, model, ctx, seq);
            const last = seq.steps.at(-1);
            if (last) last.observer = true;
            findings.push(...seen);
          }
          if (findings.length > 0) {
            seq.findings = findings;
            throw new Diverged(seq);
          }
        }
      },
    };
  }

  /** Runs a plan from emptied carts; stops at the first step with a finding. */
  async run(plans: readonly PlanStep[], seed: number): Promise<Sequence> {
    const session = await this.begin(seed);
    try {
      for (const p of plans) await session.exec(p);
    } catch (err) {
      if (!(err instanceof Diverged)) throw err;
    }
    return session.seq;
  }

  private async step(p: PlanStep, model: ModelState, ctx: RunContext, seq: Sequence): Promise<Finding[]> {
    const index = seq.steps.length;
    // A replayed proof needs a correct one of the session sent before (to every deployment alike): without one there is
    // nothing to replay, and the step is not sent.
    if (proofDefectOf(p.caller) === 'replay' && !(await Promise.all(this.worlds().map((w) => w.agents.canReplay()))).every(Boolean))
      return [];
    // A route the spec leaves open that a deployment does not describe is not sent (to either): nothing to judge.
    let resolved: Step[];
    try {
      resolved = await Promise.all(this.worlds().map((w) => w.resolve(p, ctx)));
    } catch (err) {
      if (!(err instanceof NotDeclared)) throw err;
      this.coverage.skipped(p);
      return [];
    }
    const sent = await Promise.all(
      this.worlds().map(async (w, i) => {
        const step = resolved[i]!;
        const answer = await w.send(step, ctx);
        if (step.method === 'GET' && answer.headers.etag) w.etags.set(step.path, answer.headers.etag);
        const location = answer.status >= 200 && answer.status < 300 ? answer.headers.location : undefined;
        const follow = location ? await w.follow(location, p.caller, ctx) : undefined;
        // The row is read by every other caller that may read it, and by the other account (readers.ts), one after another
        // (an assistant's proofs carry the nonce of the answer before).
        const readers: ReaderAnswer[] = [];
        for (const r of location ? readersOf(p, location, { profile: this.o.profile, baseUrl: w.baseUrl }) : [])
          readers.push({ ...r, answer: await w.follow(location!, r.caller, ctx) });
        const kind = CREATES[p.op];
        const created = kind ? createdId(answer, step.path) : undefined;
        if (kind && created !== undefined) w.rows[kind][p.caller.endsWith(':b') ? 'b' : 'a'].push(created);
        return { step, answer, follow, readers, created };
      }),
    );
    this.steps++;
    const [target, reference] = sent as [(typeof sent)[0], (typeof sent)[0] | undefined];
    seq.steps.push(target.step);
    seq.answers.push(target.answer);
    this.coverage.record(p, target.step, target.answer);
    // What the model knew before the step moved it on: the differential compares an unshown refusal only against it.
    const expected = expectedOutcome(model, p);
    const findings = [
      ...judgeByModel(
        model,
        {
          p,
          step: target.step,
          answer: target.answer,
          index,
          follow: target.follow,
          readers: target.readers,
          created: target.created,
          declaredScopes: this.declaredScopes(p.op),
          foreign: this.foreignIds(p.caller),
          variants: this.target.fixture.variants,
        },
        this.o.profile,
      ),
      ...(reference &&
      target.answer.status !== 0 &&
      reference.answer.status !== 0 &&
      this.o.oracles?.differential &&
      compared(p) &&
      (await this.sameRoute(p.op))
        ? this.o.oracles.differential(target.step, target.answer, reference.answer, index, { expected })
        : []),
      ...(target.answer.status === 0 ? [] : (this.schema?.check(target.step, target.answer, index) ?? [])),
    ];
    return findings;
  }

  /**
   * The scheduler-driven interleavings against the target (lockstep-interleave.ts), one sequence per scenario that found
   * something, each shrunk unless `shrink` is false; with `only`, that one recorded scenario as recorded (a replay).
   */
  interleave(seed: number, o: { only?: ScenarioRun; shrink?: boolean; deadline?: number } = {}): Promise<Sequence[]> {
    return interleaveOn(this.target, this.o.profile, seed, o);
  }

  close(): void {
    for (const w of this.worlds()) w.http.close();
  }
}

/** One sequence under way: the steps sent so far, and how to send the next. */
export interface Session {
  seq: Sequence;
  exec(p: PlanStep): Promise<void>;
}

/** Thrown by a step an oracle found a divergence at: it ends the run. */
export class Diverged extends Error {
  constructor(readonly seq: Sequence) {
    super(seq.findings[0]?.message ?? 'diverged');
  }
}
