// Scoped defects: a defect of a clause with a declared domain (contract/clauses/domains.ts), narrowed to one cell of it
// (one operation, caller kind, status, error code, method or route group): its proxy rules apply only to the exchanges
// of that cell (engine/report/cells.ts) and the rest conforms. A check that kills the broad defect but not a narrowed one judges
// its clause on part of its domain only.
//
// Each narrowed proxy counts, per variant, the exchanges it saw in its cell (`reached`, within the axis's fixed
// coordinates) and those its rule changed (`applied`): a variant never reached is a survivor (no check tried the cell);
// one reached but never applied is set aside (the defect's rule does not bear on that cell: nothing was broken there).
import { DOMAINS_BY_CLAUSE, cellName, parseCell, type Cell, type ClauseDomain, type DomainAxis } from '../../contract/clauses/domains.js';
import { cellContext, classify, decodeFacts, inCell, within, type CellContext, type Facts } from '../engine/report/cells.js';
import type { ProxyAnswer, ProxyRequest, ProxyRules } from './proxy.js';
import type { Defect, DefectContext } from './defects/types.js';

/** Dimensions known once the answer is in: a rule that repairs requests cannot be narrowed to them. */
const ANSWER_SIDE = new Set(['status', 'error']);

export interface Reach {
  reached: number;
  applied: number;
}

/** Reach of every narrowed variant's proxies in this process (the CLI reads it after the run). */
const REACH = new Map<string, Reach>();
export const reachOf = (id: string): Reach | undefined => REACH.get(id);
export const resetReach = (): void => REACH.clear();

/** `<defect id>@<dimension>=<value>` */
export const variantId = (of: string, cell: Cell): string => `${of}@${cellName(cell)}`;

/**
 * The narrowed variants of a defect: one per cell of its clause's domain. None for a configuration defect (nothing on the
 * wire to narrow), a clause without a domain, or a leniency defect on an answer-side dimension (its repair is made before
 * the answer is known).
 */
export function deriveVariants(d: Defect, domains: ReadonlyMap<string, ClauseDomain> = DOMAINS_BY_CLAUSE): Defect[] {
  const domain = domains.get(d.clause);
  if (!domain || d.configure || d.scope) return [];
  const out: Defect[] = [];
  for (const axis of domain.axes) {
    if (d.kind === 'leniency' && ANSWER_SIDE.has(axis.dimension)) continue;
    for (const value of axis.cells) {
      const cell: Cell = { dimension: axis.dimension, value };
      const id = variantId(d.id, cell);
      out.push({
        ...d,
        id,
        description: `${d.description}; only for ${cellName(cell)}`,
        scope: { of: d.id, cell: cellName(cell) },
        rules: (ctx: DefectContext) =>
          narrowRules(d.rules(ctx), cell, axis, cellContext(ctx.profile, ctx.target ?? 'http://x/'), counter(id)),
      });
    }
  }
  return out;
}

function counter(id: string): Reach {
  let r = REACH.get(id);
  if (!r) REACH.set(id, (r = { reached: 0, applied: 0 }));
  return r;
}

const sameAnswer = (a: ProxyAnswer, b: ProxyAnswer) =>
  a === b || (a.status === b.status && a.body === b.body && JSON.stringify(a.headers) === JSON.stringify(b.headers));
const sameRequest = (a: ProxyRequest, b: ProxyRequest) =>
  a === b || (a.method === b.method && a.path === b.path && JSON.stringify(a.headers) === JSON.stringify(b.headers));

/** `rules`, applied only to the exchanges of `cell` (the rest passes through as the target answers it). */
export function narrowRules(rules: ProxyRules, cell: Cell, axis: DomainAxis, cctx: CellContext, reach: Reach): ProxyRules {
  const answerSide = ANSWER_SIDE.has(cell.dimension);
  // The request's cell, decided once and kept for the request the `request` rule hands on (`requestBody` gets that one).
  const decided = new WeakMap<ProxyRequest, boolean>();
  const requestInCell = (req: ProxyRequest): boolean => {
    let d = decided.get(req);
    if (d === undefined) decided.set(req, (d = answerSide || inCell(facts(req), cell)));
    return d;
  };
  const facts = (req: ProxyRequest, a?: ProxyAnswer): Facts =>
    classify({ method: req.method, path: req.path, headers: req.headers, ...(a ? { status: a.status, body: a.body } : {}) }, cctx);
  const inner = rules.request;
  const innerBody = rules.requestBody;
  return {
    ...rules,
    ...(inner
      ? {
          async request(req: ProxyRequest) {
            if (!requestInCell(req)) return req;
            const out = await inner(req);
            decided.set(out, true);
            if (!sameRequest(out, req)) reach.applied++;
            return out;
          },
        }
      : {}),
    ...(innerBody
      ? {
          requestBody(req: ProxyRequest, body: string) {
            if (!requestInCell(req)) return body;
            const out = innerBody(req, body);
            if (typeof out !== 'string' || out !== body) reach.applied++;
            return out;
          },
        }
      : {}),
    response(a: ProxyAnswer, r: ProxyRequest): ProxyAnswer {
      const f = facts(r, a);
      const mine = inCell(f, cell);
      if (mine && within(f, axis.where)) reach.reached++;
      if (!rules.response || !mine) return a;
      const out = rules.response(a, r);
      if (!sameAnswer(out, a)) reach.applied++;
      return out;
    },
    ...(rules.streamFilter
      ? {
          streamFilter(a: ProxyAnswer, r: ProxyRequest) {
            if (!inCell(facts(r, a), cell)) return undefined;
            const filter = rules.streamFilter!(a, r);
            if (filter) reach.applied++;
            return filter;
          },
        }
      : {}),
  };
}

/** A seeded pick of `n` variants (mulberry32 over the ids' order), the same for the same seed and library. */
export function sampleVariants<D extends { id: string }>(variants: readonly D[], n: number, seed: number): D[] {
  let t = seed >>> 0;
  const random = () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let x = t;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const pool = [...variants].sort((a, b) => (a.id < b.id ? -1 : 1));
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, n).sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * Screening: for each narrowed variant, the checks of its clause whose exchanges reached its cell on the baseline (the
 * target without defect; `cells` of their outcomes). A variant no check reaches need not run: it survives unreached.
 */
export function reachingChecks(
  variants: readonly Defect[],
  baseline: readonly { check: string; tags?: string[]; cells?: string[] }[],
  domains: ReadonlyMap<string, ClauseDomain> = DOMAINS_BY_CLAUSE,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const v of variants) {
    const cell = v.scope ? parseCell(v.scope.cell) : undefined;
    const axis = cell && domains.get(v.clause)?.axes.find((a) => a.dimension === cell.dimension && a.cells.includes(cell.value));
    if (!cell || !axis) continue;
    const checks = baseline
      .filter((o) => o.tags?.includes(v.clause) && (o.cells ?? []).map(decodeFacts).some((f) => inCell(f, cell) && within(f, axis.where)))
      .map((o) => o.check);
    out.set(v.id, [...new Set(checks)]);
  }
  return out;
}

/** A variant set aside by screening: reached nowhere, so its row says so without a run. */
export function markUnreached(id: string): void {
  counter(id);
}
