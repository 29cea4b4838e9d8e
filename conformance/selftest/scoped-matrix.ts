// The kill matrix's rules for narrowed variants (scoped.ts), apart from the broad defects' rules (matrix.ts):
// - a variant killed is killed, as any defect;
// - a variant not killed whose cell no check reached survives: its clause was judged on part of its domain only;
// - a variant not killed that reached its cell but whose rule changed nothing there is set aside (not applicable): the
//   defect's break does not bear on that cell, nothing was broken;
// - a variant not killed whose rule did change exchanges of its cell survives, named after its clause and cell
//   ("PUR-BANNER-2 broken for invited-agent only: survived");
// - a survivor listed in known-survivors.ts is reported as known and does not fail the run.
import { parseCell } from '../../contract/clauses/domains.js';
import type { Defect } from './defects/index.js';
import type { DefectRow } from './matrix.js';

export interface ScopedRow {
  /** A narrowed variant: its broad defect and its cell (`caller=invited-agent`). */
  scope?: { of: string; cell: string };
  /** How often its proxy reached the cell, and changed an exchange there. */
  reach?: { reached: number; applied: number };
  /** The survivor line naming the clause and the cell. */
  message?: string;
  /** Why this survivor is known (known-survivors.ts). */
  known?: string;
}

/** "PUR-BANNER-2 broken for invited-agent only" */
export function brokenFor(clause: string, cell: string): string {
  const c = parseCell(cell);
  return `${clause} broken for ${c ? (c.dimension === 'caller' ? c.value : cell) : cell} only`;
}

export function scopeRows(
  rows: readonly DefectRow[],
  defects: readonly Defect[],
  reach: ((id: string) => { reached: number; applied: number } | undefined) | undefined,
  known: Readonly<Record<string, string>> = {},
): {
  rows: (DefectRow & ScopedRow)[];
  notApplicable: { id: string; clause: string; cell: string }[];
  known: number;
  /** Entries of the known-survivors list whose variant was killed in this run (the entry can go). */
  staleKnown: string[];
} {
  const byId = new Map(defects.map((d) => [d.id, d]));
  const verdictOf = new Map(rows.map((r) => [r.id, r.verdict]));
  const out: (DefectRow & ScopedRow)[] = [];
  const notApplicable: { id: string; clause: string; cell: string }[] = [];
  for (const row of rows) {
    const scope = byId.get(row.id)?.scope;
    if (!scope) {
      out.push(known[row.id] !== undefined && row.verdict !== 'killed' ? { ...row, known: known[row.id]! } : row);
      continue;
    }
    const r = reach?.(row.id);
    const scoped: DefectRow & ScopedRow = { ...row, scope, ...(r ? { reach: { ...r } } : {}) };
    if (row.verdict !== 'killed' && r) {
      if (r.reached > 0 && r.applied === 0) {
        notApplicable.push({ id: row.id, clause: row.clause, cell: scope.cell });
        continue;
      }
      // Unreached (no check sent an exchange of the cell): a survivor, whether or not a check ran.
      if (r.applied === 0) scoped.verdict = 'survived';
      const broad = verdictOf.get(scope.of);
      scoped.message =
        `${brokenFor(row.clause, scope.cell)}: survived` +
        (r.applied === 0 ? ' (no check reached the cell)' : broad === 'killed' ? ' (the broad defect is killed)' : '');
    } else if (row.verdict !== 'killed') scoped.message = `${brokenFor(row.clause, scope.cell)}: survived`;
    if (row.verdict !== 'killed' && known[row.id] !== undefined) scoped.known = known[row.id]!;
    out.push(scoped);
  }
  return {
    rows: out,
    notApplicable,
    known: out.filter((r) => r.known !== undefined).length,
    staleKnown: rows.filter((r) => r.verdict === 'killed' && known[r.id] !== undefined).map((r) => r.id),
  };
}
