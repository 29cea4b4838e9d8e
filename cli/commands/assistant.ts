// `shop-conformance assistant session`: a working assistant credential set against a running deployment, in one command.
// What the identity-provider proxy and the agent would do: the proxy reports the connected agent and its signed-in
// session (POST /internal/assistant/agents/connected, X-Proxy-Idp-Secret from the profile); the suite's issuer mints the
// DPoP-bound token for that session; a first request fetches the server's DPoP nonce. It prints shell lines that work as
// they are (docs/agent-developers.md runs them in a test).
import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { PERMISSIONS } from '../../contract/scopes.js';
import { createMinter } from '../../conformance/lib/mint.js';
import { proxyPayload } from '../../conformance/lib/credential-formats.js';
import { action, loadProfile, PROFILE_OPTION_HELP, UsageError } from './profile.js';
import { makeProof, readDpopKeyFile, writeNewDpopKeyFile } from './dpop.js';
import { SPECIAL_PATHS } from '../../contract/routes.js';

interface SessionOptions {
  baseUrl: string;
  profile?: string;
  sub: string;
  permission: string[];
  key: string;
  expiresIn: string;
  json: boolean;
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

async function post(url: string, headers: Record<string, string>, body: unknown): Promise<Response> {
  try {
    return await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  } catch (err) {
    throw new UsageError(`--base-url: nothing answers at ${new URL(url).origin} (${(err as Error).cause ?? (err as Error).message})`);
  }
}

async function session(o: SessionOptions): Promise<void> {
  const base = o.baseUrl.replace(/\/$/, '');
  if (!/^https?:\/\//.test(base)) throw new UsageError('--base-url: an http(s) URL, like http://127.0.0.1:8787');
  const profile = loadProfile(o.profile);
  const secret = profile.secrets.proxyIdpSecret;
  if (secret === null) throw new UsageError('--profile: secrets.proxyIdpSecret is null: the identity-provider proxy routes are closed');
  const unknown = o.permission.find((p) => !(PERMISSIONS as readonly string[]).includes(p));
  if (unknown !== undefined) throw new UsageError(`--permission: ${unknown} is not one of ${PERMISSIONS.join(', ')}`);
  const expiresIn = Number(o.expiresIn);
  if (!Number.isInteger(expiresIn) || expiresIn <= 0) throw new UsageError('--expires-in: a positive number of seconds');

  const keyFile = resolve(o.key);
  const key = existsSync(keyFile) ? await readDpopKeyFile(keyFile) : await writeNewDpopKeyFile(keyFile);
  const sessionId = `as_${randomUUID()}`;
  const agentId = `agent_${randomUUID().slice(0, 8)}`;
  const clientId = 'shop-conformance-cli';
  const connected = await post(
    `${base}${SPECIAL_PATHS.recordConnectedAgent}`,
    { 'x-proxy-idp-secret': secret },
    proxyPayload(profile.conventions, 'agentConnected', {
      subject: o.sub,
      agent_id: agentId,
      client_id: clientId,
      permissions: o.permission,
      session_id: sessionId,
    }),
  );
  if (!connected.ok) {
    throw new UsageError(
      `the deployment refused the session report (POST ${SPECIAL_PATHS.recordConnectedAgent}: ${connected.status} ${(await connected.text()).slice(0, 160)})`,
    );
  }
  const token = await createMinter(profile).assistant({ sub: o.sub, jkt: key.thumbprint, sid: sessionId, expiresIn });

  // The first proof has no nonce: the server answers use_dpop_nonce with one, which the printed proof then carries.
  const meUrl = `${base}/v1/me`;
  const first = await fetch(meUrl, {
    headers: { authorization: `DPoP ${token}`, dpop: (await makeProof({ key, method: 'GET', url: meUrl, token })).proof },
  }).catch((err: Error) => {
    throw new UsageError(`--base-url: nothing answers at ${base} (${String(err.cause ?? err.message)})`);
  });
  const nonce = first.headers.get('dpop-nonce') ?? undefined;

  if (o.json) {
    process.stdout.write(
      JSON.stringify({
        baseUrl: base,
        token,
        keyFile,
        jkt: key.thumbprint,
        sessionId,
        agentId,
        sub: o.sub,
        permissions: o.permission,
        nonce,
      }) + '\n',
    );
    return;
  }
  const dpop = `npx shop-conformance dpop --key ${shellQuote(keyFile)} --method GET --url "$SHOP/v1/me" --token "$ASSISTANT_TOKEN"${nonce ? ` --nonce ${shellQuote(nonce)}` : ''}`;
  process.stdout.write(
    [
      `export SHOP=${shellQuote(base)}`,
      `export ASSISTANT_TOKEN=${token}`,
      `export ASSISTANT_KEY=${shellQuote(keyFile)}`,
      `export ASSISTANT_SESSION=${shellQuote(sessionId)}`,
      ...(nonce ? [`export DPOP_NONCE=${shellQuote(nonce)}`] : []),
      `# session ${sessionId} of ${o.sub} (${o.permission.join(' ')}), key thumbprint ${key.thumbprint}; a request:`,
      `# curl "$SHOP/v1/me" -H "Authorization: DPoP $ASSISTANT_TOKEN" -H "DPoP: $(${dpop})"`,
      '',
    ].join('\n'),
  );
  process.stderr.write(
    `registered assistant session ${sessionId} for ${o.sub}; token valid ${expiresIn} s; each answer's DPoP-Nonce goes in the next proof (--nonce)\n`,
  );
}

export function addAssistantCommand(program: Command): void {
  const assistant = program
    .command('assistant')
    .description('Credentials of an assistant (a personal agent with DPoP) against a deployment.');
  assistant
    .command('session')
    .description(
      'Register a signed-in assistant session at the deployment (as the identity-provider proxy does), mint its DPoP-bound token, fetch a nonce, and print shell lines to use them.',
    )
    .requiredOption('--base-url <url>', 'the running deployment (for instance the reference: shop-conformance serve)')
    .option('--profile <file>', PROFILE_OPTION_HELP)
    .option('--sub <sub>', 'the account the session is signed in to', 'cust_ada')
    .option('--permission <p...>', `the session's live scopes (${PERMISSIONS.join(', ')})`, [...PERMISSIONS])
    .option('--key <file>', 'private JWK the token is bound to: read if it exists, created (mode 600) if not', 'assistant.jwk')
    .option('--expires-in <seconds>', 'token lifetime', '3600')
    .option('--json', 'print { baseUrl, token, keyFile, jkt, sessionId, agentId, sub, permissions, nonce } instead', false)
    .addHelpText(
      'after',
      `
SHOP is the deployment's URL, such as http://127.0.0.1:8787 of \`shop-conformance serve\`.

Examples:
  $ eval "$(shop-conformance assistant session --base-url "$SHOP")"   # sets SHOP, ASSISTANT_TOKEN, ASSISTANT_KEY, ASSISTANT_SESSION, DPOP_NONCE
  $ curl "$SHOP/v1/me" -H "Authorization: DPoP $ASSISTANT_TOKEN" \\
      -H "DPoP: $(shop-conformance dpop --key "$ASSISTANT_KEY" --method GET --url "$SHOP/v1/me" --token "$ASSISTANT_TOKEN" --nonce "$DPOP_NONCE")"`,
    )
    .action(action('assistant session', session));
}
