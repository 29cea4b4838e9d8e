// The embedded run's variant deployments (cli/embedded-variants.ts) as a plug-in of the checks (plugin.ts): a check a
// variant judges gets a copy of its test naming that deployment, in the same project and workers as every other check (a
// project per variant would start workers of its own after the main project's), and the copy's requests go there once
// the late target (late.ts) has said where it listens. The suite's configuration installs it.
import type { TestInfo } from '@playwright/test';
import { DEPLOYMENT, runVariants, type TargetVariant } from './params.js';
import { currentPlan } from './plan.js';
import type { CheckPlugin } from './plugin.js';

/** The variant deployment a copy of a check judges (its URL known once the late target arrived). */
function deploymentOf(deployment: string): TargetVariant {
  const variant = runVariants().find((v) => `variant-${v.name}` === deployment);
  if (!variant) throw new Error(`the run started no deployment ${deployment}`);
  return variant;
}

export const variantCopies: CheckPlugin = {
  copies({ spec, title, details, run, test }) {
    for (const v of (currentPlan()?.variants ?? []).filter((x) => x.checks.includes(spec.id)))
      test.describe(`variant-${v.name}`, () =>
        test(
          title,
          { ...details, annotation: [...[details.annotation ?? []].flat(), { type: DEPLOYMENT, description: `variant-${v.name}` }] },
          run,
        ));
    return undefined;
  },
  route(info: TestInfo) {
    const deployment = info.annotations.find((a) => a.type === DEPLOYMENT)?.description;
    return deployment ? { variant: deploymentOf(deployment) } : undefined;
  },
};
