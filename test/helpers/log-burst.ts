// A process that logs a burst through the reference's logger on stderr, says so on stdout, then exits or crashes:
// `log-burst.ts <lines> exit|crash`. Used by test/http/logging.test.ts with a stderr that nobody reads at first.
import { createLogger } from '../../reference/src/log.js';

const [lines = '1000', end = 'exit'] = process.argv.slice(2);
const log = createLogger('info');
for (let i = 0; i < Number(lines); i++) log.info('burst', { i, pad: 'x'.repeat(200) });
process.stdout.write('logged\n');
// The parent starts reading stderr once it has seen `logged`; the end comes a little later.
setTimeout(() => {
  if (end === 'crash') throw new Error('crash after the burst');
  process.exit(0);
}, 200);
