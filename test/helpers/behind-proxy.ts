// The reference behind a proxy, as the alternates and their twins run it: a reference of its own (fresh in-memory
// database, the fixture profile with its guest-key rotation begun now, and the seed) behind a proxy with the given
// rules, for the time of `body`.
import { startServer } from '../../reference/src/server.js';
import { loadConfig } from '../../reference/src/config.js';
import { rotatingProfilePath } from './reference.js';
import { startProxy, type ProxyRules } from './mutating-proxy.js';

export async function behindProxy<T>(rules: ProxyRules, body: (url: string) => Promise<T>): Promise<T> {
  const reference = await startServer(
    loadConfig({ env: {}, profilePath: rotatingProfilePath(), overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }),
  );
  const proxy = await startProxy(reference.url, rules);
  try {
    return await body(proxy.url);
  } finally {
    await proxy.close();
    await reference.close();
  }
}
