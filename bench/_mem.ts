import autocannon from 'autocannon';
import { scenarios, startChild } from './throughput.js';
const flags = process.argv.slice(2);
const child = await startChild('reference', ['-r', '/tmp/mem.cjs', ...flags]);
const list = await scenarios(child.url);
const show = async () => { child.process.kill('SIGUSR2'); await new Promise((r) => setTimeout(r, 300)); };
await show();
for (const [name, reqs] of Object.entries(list)) { await autocannon({ url: child.url, connections: 100, duration: 4, requests: await reqs(child.url) }); console.error('after', name); }
await show();
child.process.kill();
