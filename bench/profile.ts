// CPU profile of the reference under one throughput scenario (the profile lands in /tmp/prof; read it with Chrome's
// DevTools or any .cpuprofile viewer). Run after `npm run build`: npx tsx bench/profile.ts 'authenticated GET /v1/cart'
import autocannon from 'autocannon';
import { scenarios, startChild } from './throughput.js';
const which = process.argv[2] ?? 'authenticated GET /v1/cart';
const child = await startChild('reference', {
  nodeFlags: ['--cpu-prof', '--cpu-prof-interval', '200', '--cpu-prof-dir', '/tmp/prof'],
  logs: 'default',
});
const list = await scenarios(child.url);
const r = await autocannon({ url: child.url, connections: 50, duration: 6, requests: await list[which]!(child.url) });
console.log(which, r.requests.average);
child.process.kill('SIGTERM');
await new Promise((r) => child.process.once('exit', r));
