// The coverage map of an exploration (docs/explore.md, "Coverage map"): per command × caller kind × mutation family, how
// many requests reached it and with which statuses; per clause with a declared domain (contract/clauses/domains.ts), the
// cells of its domain the exploration's exchanges fell in, as `run`'s domain coverage names them (the same classifier,
// engine/report/cells.ts); and, last, every command × caller-kind cell never reached, as `run` lists unjudged clauses.
import { CALLER_CAPABILITY, CALLER_KINDS, type CallerKind } from '../../contract/callers.js';
import type { Profile } from '../../contract/profile.js';
import { cellContext, classify, encodeFacts, type CellContext } from '../engine/report/cells.js';
import { domainCoverage, type ClauseCoverage } from '../engine/report/coverage.js';
import { DOMAINS } from '../../contract/clauses/domains.js';
import type { Answer, Step } from './exchange.js';
import { admittedKinds, COMMANDS, hasOwnCredential, type Command } from './commands.js';
import { isSound, kindOfCaller, type PlanStep } from './plan.js';
import { credentialsOfStep } from './agent-callers.js';

/** What a step did to its request besides its caller: nothing, or a family of mutations (a defective credential is one). */
export type Family = 'none' | 'credential' | 'body' | 'header' | 'path' | 'method';

const FAMILY: Readonly<Record<string, Family>> = {
  'wrong-type': 'body',
  'missing-member': 'body',
  'over-long': 'body',
  'bad-escape': 'body',
  'not-json': 'body',
  'no-content-type': 'header',
  'duplicate-header': 'header',
  'absent-header': 'header',
  'wrong-method': 'method',
  'unknown-id': 'path',
  'foreign-id': 'path',
  'foreign-card': 'body',
  'bad-path-escape': 'path',
  conditional: 'header',
  'body-shape': 'body',
  'token-shape': 'credential',
  'proof-shape': 'credential',
  'session-shape': 'credential',
  'context-shape': 'credential',
};

export function familyOf(p: Pick<PlanStep, 'mutation' | 'caller'>): Family {
  if (p.mutation) return FAMILY[p.mutation] ?? 'body';
  return isSound(p.caller) || p.caller === 'anonymous' || p.caller === 'secret:own' ? 'none' : 'credential';
}

/**
 * The kind dimension of the map: a caller kind, no credential, the route's own credential (`secret`), or a credential
 * of no caller kind (`other`: a forwarder without an artifact, the proxy client's machine token).
 */
export type MapKind = CallerKind | 'anonymous' | 'secret' | 'other';

export interface MapRow {
  command: string;
  kind: MapKind;
  /** Whether the contract admits the kind on the command (`open`: the spec does not show the list). */
  admitted: boolean;
  family: Family;
  steps: number;
  statuses: Record<string, number>;
}

export interface CoverageReport {
  rows: MapRow[];
  /** Command × kind cells the profile's callers could reach and no request did. */
  unreached: { command: string; kind: MapKind; admitted: boolean }[];
  /** Commands a deployment does not describe (routes the spec leaves open), with the steps that named them. */
  undeclared: Record<string, number>;
  clauses: ClauseCoverage[];
}

/** The kinds a profile lets `explore` send: those it claims, no credential, and the routes' own credentials. */
export function kindsOf(profile: Profile): MapKind[] {
  const claimed = CALLER_KINDS.filter((k) => {
    const cap = CALLER_CAPABILITY[k];
    if (k === 'assistant' && !profile.secrets.proxyIdpSecret) return false;
    return cap === undefined || profile.capabilities[cap];
  });
  return [...claimed, 'anonymous', 'secret'];
}

/** The kinds a command is expected to meet: every claimed kind and none; the own credential only where the route has one. */
const kindsFor = (c: Command, kinds: readonly MapKind[]) => kinds.filter((k) => k !== 'secret' || hasOwnCredential(c.id));

const admits = (c: Command, kind: MapKind) =>
  kind === 'secret' ? hasOwnCredential(c.id) : c.kind === 'public' || (admittedKinds(c) as string[]).includes(kind);

export class CoverageMap {
  private readonly cells = new Map<string, MapRow>();
  private readonly facts = new Set<string>();
  private readonly undeclared = new Map<string, number>();
  private readonly ctx: CellContext;

  constructor(
    private readonly profile: Profile,
    target: string,
  ) {
    this.ctx = cellContext(profile, target);
  }

  /** One request of the target and its answer. */
  record(p: PlanStep, step: Step, answer: Answer): void {
    const kind: MapKind = kindOfCaller(p.caller) ?? 'other';
    const command = COMMANDS.find((c) => c.id === p.op);
    if (!command) return;
    const family = familyOf(p);
    const key = `${p.op}|${kind}|${family}`;
    const row = this.cells.get(key) ?? { command: p.op, kind, admitted: admits(command, kind), family, steps: 0, statuses: {} };
    row.steps++;
    row.statuses[answer.status] = (row.statuses[answer.status] ?? 0) + 1;
    this.cells.set(key, row);
    // The caller and the proof are the label's (the step's headers hold no credential: they are minted when sent).
    const facts = classify({ method: step.method, path: step.path, headers: {}, status: answer.status, body: answer.text }, this.ctx);
    const caller = (CALLER_KINDS as readonly string[]).includes(kind) ? (kind as CallerKind) : facts.caller;
    this.facts.add(encodeFacts({ ...facts, caller, dpop: credentialsOfStep(step).proof }));
  }

  /** A step whose route the deployment does not describe: not sent. */
  skipped(p: PlanStep): void {
    this.undeclared.set(p.op, (this.undeclared.get(p.op) ?? 0) + 1);
  }

  report(): CoverageReport {
    const kinds = kindsOf(this.profile);
    const rows = [...this.cells.values()].sort((a, b) => (a.command + a.kind + a.family).localeCompare(b.command + b.kind + b.family));
    const reached = new Set(rows.map((r) => `${r.command}|${r.kind}`));
    const unreached = COMMANDS.filter((c) => !this.undeclared.has(c.id)).flatMap((c) =>
      kindsFor(c, kinds)
        .filter((k) => !reached.has(`${c.id}|${k}`))
        .map((k) => ({ command: c.id, kind: k, admitted: admits(c, k) })),
    );
    // Every exchange is judged by the rules of every response, the model and the differential: the domains' cells the
    // exchanges fell in are the cells reached (one outcome citing every clause with a domain).
    const clauses = domainCoverage([{ id: 'explore', clauses: DOMAINS.map((d) => d.clause), status: 'passed', cells: [...this.facts] }]);
    return { rows, unreached, undeclared: Object.fromEntries(this.undeclared), clauses };
  }
}

/** The map in lines, for the console: a summary per command, then the cells never reached. */
export function formatCoverageMap(c: CoverageReport): string[] {
  const lines: string[] = ['coverage map (command: requests by caller kind; a kind the contract refuses in brackets):'];
  for (const command of [...new Set(c.rows.map((r) => r.command))]) {
    const mine = c.rows.filter((r) => r.command === command);
    const byKind = new Map<string, number>();
    for (const r of mine) byKind.set(r.admitted ? r.kind : `[${r.kind}]`, (byKind.get(r.admitted ? r.kind : `[${r.kind}]`) ?? 0) + r.steps);
    lines.push(`  ${command.padEnd(34)} ${[...byKind].map(([k, n]) => `${k} ${n}`).join(', ')}`);
  }
  const gaps = c.clauses.filter((r) => r.axes.some((a) => a.untried.length > 0));
  lines.push(`clause domains: ${c.clauses.length - gaps.length} of ${c.clauses.length} with every cell reached`);
  for (const [command, n] of Object.entries(c.undeclared)) lines.push(`  not described by the target: ${command} (${n} steps not sent)`);
  if (c.unreached.length === 0) lines.push('every command × caller-kind cell was reached');
  else {
    lines.push(`never reached (${c.unreached.length} command × caller-kind cells):`);
    for (const u of c.unreached) lines.push(`  ${u.command} as ${u.kind}${u.admitted ? '' : ' (refused)'}`);
  }
  return lines;
}
