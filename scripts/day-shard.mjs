// Prints the day's shard `i/n` (UTC day number modulo n, plus one) for npm test's share of a long self-test: every shard
// runs within n days, and a run is repeatable the same day. `node scripts/day-shard.mjs 3` → `2/3`.
const n = Number(process.argv[2] ?? 3);
if (!Number.isInteger(n) || n < 1) {
  process.stderr.write('day-shard: the number of shards must be a positive integer\n');
  process.exit(2);
}
process.stdout.write(`${(Math.floor(Date.now() / 86_400_000) % n) + 1}/${n}\n`);
