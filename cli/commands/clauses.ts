// `shop-conformance clauses`: the clause catalogue with coverage (which checks enforce each clause).
import type { Command } from 'commander';
import { CLAUSES, type SpecPart } from '../../conformance/clauses/index.js';
import { PENDING } from '../../conformance/clauses/pending.js';
import { listChecks } from '../../conformance/engine/list.js';
import { EXIT } from '../exit.js';

export function addClausesCommand(program: Command): void {
  program
    .command('clauses')
    .description('Print every clause of the spec with its severity and the checks that cover it.')
    .option('--json', 'print JSON instead of a table', false)
    .option(
      '--part <part>',
      'only one part of the spec (purpose, resources, states, endpoints, authentication, events, errors, limits, versioning)',
    )
    .option('--uncovered', 'only clauses without a check', false)
    .addHelpText(
      'after',
      `
Examples:
  $ shop-conformance clauses
  $ shop-conformance clauses --part authentication --uncovered
  $ shop-conformance clauses --json > clauses.json`,
    )
    .action(async (o: { json: boolean; part?: string; uncovered: boolean }) => {
      const parts = new Set(CLAUSES.map((c) => c.part));
      if (o.part && !parts.has(o.part as SpecPart)) {
        process.stderr.write(`shop-conformance clauses: --part must be one of ${[...parts].join(', ')}\n`);
        process.exit(EXIT.usage);
      }
      const checks = await listChecks();
      const rows = CLAUSES.filter((c) => !o.part || c.part === o.part)
        .map((c) => {
          const covering = checks.filter((k) => k.clauses.includes(c.id));
          const coverage = covering.length > 0 ? 'covered' : c.notTestable ? 'not-testable' : PENDING[c.id] ? 'pending' : 'uncovered';
          return {
            ...c,
            coverage,
            checks: covering.map((k) => ({ id: k.id, level: k.level })),
            ...(PENDING[c.id] ? { pending: PENDING[c.id] } : {}),
          };
        })
        .filter((r) => !o.uncovered || r.coverage !== 'covered');
      if (o.json) {
        process.stdout.write(JSON.stringify({ clauses: rows, checks: checks.length }, null, 2) + '\n');
        return;
      }
      let part = '';
      for (const r of rows) {
        if (r.part !== part) {
          part = r.part;
          process.stdout.write(`\n${part.toUpperCase()}\n`);
        }
        const cov = r.coverage === 'covered' ? `${r.checks.length} check${r.checks.length > 1 ? 's' : ''}` : r.coverage;
        process.stdout.write(`  ${r.id.padEnd(30)} ${r.severity.padEnd(6)} ${cov.padEnd(13)} ${r.text}\n`);
        if (r.coverage === 'not-testable') process.stdout.write(`  ${''.padEnd(51)}why: ${r.notTestable}\n`);
      }
      const count = (k: string) => rows.filter((r) => r.coverage === k).length;
      process.stdout.write(
        `\n${rows.length} clauses: ${count('covered')} covered by ${checks.length} checks, ${count('not-testable')} not testable, ${count('pending')} pending, ${count('uncovered')} uncovered\n`,
      );
    });
}
