// The self-test as a plug-in of the checks (engine/runner/plugin.ts): under `shop-conformance self-test` each check
// registers a copy of itself per plan project that judges it (plan.ts), each copy goes to the target, a defect's proxy or
// a variant deployment, a copy with nothing left to judge is skipped, and a judged failure is a kill, put on the ledger
// (kill-ledger.ts), while the test passes (its worker lives on). The self-test's configuration installs it.
import type { TestInfo } from '@playwright/test';
import type { CheckPlugin } from '../engine/runner/plugin.js';
import { copiesOf, defectsJudgedBy, SELFTEST_PROJECT, SELFTEST_SOURCE_TAG, targetOf, type CopyTarget, type Plan } from './plan.js';
import { ALREADY_KILLED, NOTHING_LEFT, killedBy, killingClauses, recordKill } from './kill-ledger.js';

const checkIdOf = (info: TestInfo) => info.annotations.find((a) => a.type === 'check')?.description ?? '';
const clauseTagsOf = (info: TestInfo) => info.tags.map((t) => t.slice(1));

/** The plug-in of the self-test whose plan is `plan`. */
export function selfTestCopies(plan: Plan): CheckPlugin {
  /** The copy this worker runs now (one test at a time): its plan project, where it goes, the defect it judges. */
  let current: { project: string; target: CopyTarget } | undefined;
  return {
    // Each check once per plan project that needs it: copies in the one Playwright project, so that its workers never
    // restart; the check's own test is tagged out (the configuration greps it out). While the CLI lists the checks, none.
    copies({ spec, title, details, run, test }) {
      if (plan.listing) return undefined;
      const copies = copiesOf(plan, spec.id, spec.clauses);
      const register = () => {
        for (const name of copies)
          test.describe(name, () =>
            test(
              title,
              { ...details, annotation: [...[details.annotation ?? []].flat(), { type: SELFTEST_PROJECT, description: name }] },
              run,
            ),
          );
      };
      // The copies of a check on the seeded data (a seeded account's cart and saved card) cannot run beside each other:
      // they run one after another in one worker, while the other workers go on.
      if (spec.seed)
        test.describe(`copies of ${spec.id}`, () => {
          test.describe.configure({ mode: 'default' });
          register();
        });
      else register();
      return { ...details, tag: [...[details.tag ?? []].flat(), SELFTEST_SOURCE_TAG] };
    },

    // Where the copy goes, skipping it when it has nothing left to judge: its defect already killed by another check,
    // or, for a baseline copy, every defect the check judges.
    route(info) {
      const copy = info.annotations.find((a) => a.type === SELFTEST_PROJECT)?.description;
      const target = copy ? targetOf(plan, copy, checkIdOf(info), clauseTagsOf(info)) : undefined;
      current = copy && target ? { project: copy, target } : undefined;
      const ledger = plan.kills;
      if (ledger && current) {
        const by = current.target.defect ? killedBy(ledger, current.target.defect.id) : undefined;
        info.skip(by !== undefined, `${ALREADY_KILLED} ${by}`);
        if (current.project === 'baseline') {
          const judged = defectsJudgedBy(plan, checkIdOf(info), clauseTagsOf(info));
          info.skip(judged.length > 0 && judged.every((d) => killedBy(ledger, d.id) !== undefined), NOTHING_LEFT);
        }
      }
      return target?.variant ? { variant: target.variant } : target ? { baseUrl: target.baseUrl } : undefined;
    },

    // The self-test reads the verdict alone (no transcript); a kill of the copy's defect (a failure of its clause) goes
    // on the ledger for the other workers.
    onFailure(info, blamed) {
      const ledger = plan.kills;
      const checkId = checkIdOf(info);
      const judged = current?.target.defect;
      if (ledger && checkId && judged && blamed.some((c) => killingClauses(judged.clause).includes(c)))
        recordKill(ledger, judged.id, checkId);
      return true;
    },

    // Only the baseline's cells are read (the screening of narrowed variants): a copy judging a defect records none.
    recordsCells: () => current?.target.defect === undefined,
  };
}
