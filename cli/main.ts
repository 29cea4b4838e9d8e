#!/usr/bin/env node
// The shop-conformance command line: one add<X>Command per command over the library.
import { Command } from 'commander';
import { addServeCommand } from './commands/serve.js';
import { addRunCommand } from './commands/run.js';
import { addClausesCommand } from './commands/clauses.js';
import { addDoctorCommand } from './commands/doctor.js';
import { addTokenCommand } from './commands/token.js';
import { addGuestSessionCommand } from './commands/guest-session.js';
import { addDpopCommand } from './commands/dpop.js';
import { addProfileCommand } from './commands/profile.js';
import { addIdpCommand } from './commands/idp.js';
import { EXIT } from './exit.js';
import { VERSION } from '../reference/src/app.js';

const program = new Command('shop-conformance')
  .description('Reference server and conformance suite for the shop HTTP/JSON service.')
  .version(VERSION)
  .showHelpAfterError()
  .exitOverride((err) => {
    process.exit(err.exitCode === 0 ? 0 : EXIT.usage);
  });

addRunCommand(program);
addDoctorCommand(program);
addClausesCommand(program);
addServeCommand(program);
addTokenCommand(program);
addGuestSessionCommand(program);
addDpopCommand(program);
addProfileCommand(program);
addIdpCommand(program);

await program.parseAsync(process.argv);
