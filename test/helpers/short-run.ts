// npm test's short run of the alternates: each full `run --level spec` against an alternate takes a minute or more, and
// all of them together most of the CI's time. `npm test` runs a sixth of each list, a different sixth every UTC day (so
// that every alternate runs in CI within six days, and a run is repeatable the same day); `npm run bench -- --only
// alternates` runs them all (SHOP_CONFORMANCE_ALL_ALTERNATES=1). Naming alternates in the test file's own variable
// (BLIND_ALTERNATES=a,b) runs exactly those.

/** Whether this run takes every alternate. */
export const allAlternates = () => process.env.SHOP_CONFORMANCE_ALL_ALTERNATES === '1';

/** The UTC day number, which picks the day's third. */
const today = () => Math.floor(Date.now() / 86_400_000);

/**
 * The entries of `list` this run takes: `named` when given, all with SHOP_CONFORMANCE_ALL_ALTERNATES=1, else every
 * `share`-th entry from the day's offset. The choice is printed, so that a failure names what to run again.
 */
export function shortRun<T extends { name: string }>(label: string, list: readonly T[], named?: readonly string[], share = 6): T[] {
  if (named && named.length > 0) return list.filter((a) => named.includes(a.name));
  if (allAlternates()) return [...list];
  const offset = today() % share;
  const picked = list.filter((_, i) => i % share === offset);
  process.stdout.write(
    `# ${label}: ${picked.length} of ${list.length} (day ${today()}, every ${share}th from ${offset}; SHOP_CONFORMANCE_ALL_ALTERNATES=1 runs all): ${picked.map((a) => a.name).join(', ')}\n`,
  );
  return picked;
}
