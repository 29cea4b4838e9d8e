// `shop-conformance doctor`: can the suite judge this deployment? (Also run first by `run`.)
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { doctor } from '../../conformance/engine/doctor.js';
import { readProfileFile } from '../../conformance/engine/params.js';
import { FIXTURE_PROFILE } from '../../reference/src/paths.js';
import { EXIT } from '../exit.js';

export function addDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('Check that the target is reachable, answers problem documents and accepts a token minted from the profile.')
    .requiredOption('--base-url <url>', 'the deployment to check')
    .option('--profile <file>', 'profile the deployment shares with the suite', FIXTURE_PROFILE)
    .option('--json', 'print the steps as JSON', false)
    .addHelpText('after', `
Exit codes: 0 ready, 2 usage or configuration error, 3 unreachable or not trusting the suite's issuer.

Examples:
  $ shop-conformance doctor --base-url http://127.0.0.1:8787
  $ shop-conformance doctor --base-url https://shop.example --profile ./profile.json --json`)
    .action(async (o: { baseUrl: string; profile: string; json: boolean }) => {
      let profile;
      try {
        new URL(o.baseUrl);
        profile = readProfileFile(resolve(o.profile));
      } catch (err) {
        process.stderr.write(`shop-conformance doctor: ${(err as Error).message.split('\n')[0]}\n`);
        process.exit(EXIT.usage);
      }
      const report = await doctor(o.baseUrl, profile);
      if (o.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
      else for (const s of report.steps) process.stdout.write(`${s.ok ? 'ok  ' : 'FAIL'} ${s.name}: ${s.detail}\n`);
      process.exit(report.exitCode);
    });
}
