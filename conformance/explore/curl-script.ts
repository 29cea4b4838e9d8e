// A finding as a shell script a person can run later (docs/explore.md): one curl command per step, with credentials minted
// afresh on replay by the CLI's fixture commands (`token`, `dpop`, `guest-session`), since tokens expire and a DPoP proof is
// accepted once. Each caller label keeps its identity across the script: one cart id per guest, one DPoP key and session per
// assistant, the last DPoP-Nonce an assistant was given. Pure: renders text, sends nothing.
import { shellQuote } from '../engine/transport/transcript.js';
import type { Step } from './exchange.js';

/** Kinds the `token` command mints (cli/commands/token.ts). */
export const TOKEN_KINDS = ['customer', 'delegated', 'guest', 'operator', 'invited-agent', 'assistant', 'mcp-agent-forwarder'] as const;

/** How a step's caller label is sent: a kind the CLI mints (or none), its `token` options, and a defect applied after. */
export interface CallerPlan {
  /** null: no credential at all. */
  kind: (typeof TOKEN_KINDS)[number] | null;
  /** Extra `token` options (`--sub cust_ben`, `--expires-in -60`, ...). */
  args: string[];
  /**
   * A defect the CLI cannot mint: the token's signature broken, a forged guest session, the previous proof sent again, the
   * signature of the forwarded artifact (the invited-agent context) broken, the forwarded artifact left out.
   */
  tamper?: 'signature' | 'guest-session' | 'replay-proof' | 'artifact-signature' | 'drop-artifact';
  /**
   * A registered assistant's request with a defective proof (`dpop` options changed) or its token sent as Bearer without
   * one: `none` no DPoP header, `wrong-htm`, `wrong-htu`, `no-ath`, `bad-ath`, `bad-nonce`, `wrong-key` (a throwaway key,
   * which the token's cnf.jkt does not name), `bearer`.
   */
  proof?: 'none' | 'wrong-htm' | 'wrong-htu' | 'no-ath' | 'bad-ath' | 'bad-nonce' | 'wrong-key' | 'bearer';
  /** Who the caller is across steps (one cart, one DPoP key): the label without its defect. */
  identity: string;
  /** Set when the label names nothing the CLI can produce; the step is then sent without credentials, with a comment. */
  unknown?: string;
}

/** `token` options for the defects the CLI mints itself. */
const DEFECT_ARGS: Readonly<Record<string, readonly string[]>> = {
  expired: ['--expires-in', '-60'],
  'no-scope': ['--scope', ''],
  'unknown-client': ['--claim', 'client_id=unknown-client'],
  'no-session': ['--no-session'],
  'wrong-audience': ['--claim', 'aud=https://elsewhere.invalid'],
  'wrong-issuer': ['--claim', 'iss=https://elsewhere.invalid'],
};
const TAMPERS: Readonly<Record<string, NonNullable<CallerPlan['tamper']>>> = {
  'bad-signature': 'signature',
  'forged-session': 'guest-session',
  replay: 'replay-proof',
};

/**
 * The default reading of a caller label: `<kind>[@<sub>][#<n>][:<defect>]`, e.g. `customer`, `customer@cust_ben`,
 * `guest#2` (a second guest, its own cart), `assistant:replay`, `customer:expired`; `none` or '' for no credential.
 */
export function planCaller(caller: string): CallerPlan {
  const [identity = '', defect] = caller.split(':', 2) as [string, string | undefined];
  const m = /^([a-z-]+)(?:@([^#\s]+))?(?:#\w+)?$/.exec(identity);
  if (identity === '' || identity === 'none' || identity === 'anonymous') return { kind: null, args: [], identity: 'none' };
  const kind = TOKEN_KINDS.find((k) => k === m?.[1]);
  if (!m || !kind) return { kind: null, args: [], identity, unknown: caller };
  const args = m[2] ? ['--sub', m[2]] : [];
  if (defect === undefined) return { kind, args, identity };
  if (DEFECT_ARGS[defect]) return { kind, args: [...args, ...DEFECT_ARGS[defect]!], identity };
  if (TAMPERS[defect]) return { kind, args, identity, tamper: TAMPERS[defect] };
  return { kind, args, identity, unknown: caller };
}

const PRINTABLE = /^[\x20-\x7e\t\n\u00a0-\uffff]*$/;
/** A word bash reads back as exactly `s`: single quotes for printable text, ANSI-C `$'\xHH'` for control characters. */
export function shellWord(s: string): string {
  if (PRINTABLE.test(s) && !s.includes('\r')) return shellQuote(s);
  const bytes = [...Buffer.from(s, 'utf8')].map((b) =>
    b >= 0x20 && b < 0x7f && b !== 0x27 && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`,
  );
  return `$'${bytes.join('')}'`;
}

const variable = (identity: string) => identity.replace(/[^A-Za-z0-9]/g, '_').toUpperCase();

/** The body as curl options: printable text inline (`--data-raw` never reads a file), anything else through base64. */
function bodyLines(step: Step, n: number): { setup: string[]; options: string[] } {
  if (!step.body) return { setup: [], options: [] };
  const text = 'json' in step.body ? JSON.stringify(step.body.json) : step.body.text;
  const type = 'json' in step.body ? 'application/json' : step.body.contentType;
  const hasType = Object.keys(step.headers).some((h) => h.toLowerCase() === 'content-type');
  // curl adds a form content type to --data unless told otherwise: the step's own, the body's, or none at all.
  const typeOption = hasType ? [] : ['-H', shellQuote(type ? `Content-Type: ${type}` : 'Content-Type:')];
  if (PRINTABLE.test(text) && !text.includes('\0')) return { setup: [], options: [...typeOption, '--data-raw', shellWord(text)] };
  const file = `"$T/body${n}"`;
  return {
    setup: [`printf '%s' ${shellQuote(Buffer.from(text, 'utf8').toString('base64'))} | base64 -d > ${file}`],
    options: [...typeOption, '--data-binary', `@${file}`],
  };
}

function headerOptions(step: Step): string[] {
  const out: string[] = [];
  for (const [name, values] of Object.entries(step.headers)) {
    for (const value of Array.isArray(values) ? values : [values]) {
      // `Name:` would remove the header; `Name;` sends it empty.
      out.push('-H', value === '' ? shellWord(`${name};`) : shellWord(`${name}: ${value}`));
    }
  }
  return out;
}

export interface CurlScriptOptions {
  baseUrl: string;
  profilePath?: string;
  /** How a caller label maps to the CLI (default: planCaller's `<kind>[@<sub>][#<n>][:<defect>]`). */
  planCaller?: (caller: string) => CallerPlan;
  /** The command that runs the CLI (default: `npx shop-conformance`; `$SHOP_CLI` in the environment overrides it at run time). */
  cli?: string;
  /** Groups of step indices (from 0) sent at once, as a concurrency finding names them; each group in index order. */
  parallel?: readonly (readonly number[])[];
  /** A comment printed at the top: the seed, the finding. */
  title?: string;
}

/**
 * The lines that write the caller's headers for step `n` to `$T/cred<n>`. An assistant is a session registered once per
 * identity (`assistant session`, as the identity-provider proxy does) with a fresh proof per request carrying the last
 * nonce it was given; a defect the `token` command mints is minted with it, unregistered (the defect is what is sent).
 */
function credentialLines(
  caller: CallerPlan,
  c: { v: string; n: number; method: string; url: string; profile: string; first: boolean },
): string[] {
  const { v, n, url, profile } = c;
  const file = `"$T/cred${n}"`;
  const out: string[] = [];
  const session = caller.kind === 'assistant' && caller.args.every((a) => a !== '--expires-in' && a !== '--claim' && a !== '--scope');
  if (c.first && caller.kind === 'guest') out.push(`UUID_${v}="$(new_uuid)"`);
  if (c.first && session) {
    const sub = caller.args[0] === '--sub' ? ` --sub ${shellWord(caller.args[1]!)}` : '';
    out.push(
      `eval "$($SHOP_CLI assistant session --base-url "$BASE"${profile}${sub} --key "$T/key_${v}.jwk")"`,
      `TOKEN_${v}="$ASSISTANT_TOKEN"; NONCE_${v}="\${DPOP_NONCE:-}"`,
    );
  }
  const args = caller.args.map(shellWord);
  if (caller.kind === 'guest' && !caller.args.includes('--no-session')) args.push('--uuid', `"$UUID_${v}"`);
  if (caller.kind === 'assistant' && !session) args.push('--url', url, '--method', shellQuote(c.method));
  const nonce = caller.proof === 'bad-nonce' ? '--nonce "$(random_nonce)"' : `\${NONCE_${v}:+--nonce "$NONCE_${v}"}`;
  const htm = caller.proof === 'wrong-htm' ? (c.method.toUpperCase() === 'POST' ? 'DELETE' : 'POST') : c.method;
  const htu = caller.proof === 'wrong-htu' ? '"$BASE"/v1/catalog/products' : url;
  const key = caller.proof === 'wrong-key' ? '' : `--key "$T/key_${v}.jwk" `;
  const ath = caller.proof === 'no-ath' ? '' : caller.proof === 'bad-ath' ? `--token "\${TOKEN_${v}}x" ` : `--token "$TOKEN_${v}" `;
  const proofLine = `echo "DPoP: $($SHOP_CLI dpop ${key}--method ${shellQuote(htm)} --url ${htu} ${ath}${nonce})"; `;
  const scheme = caller.proof === 'bearer' ? 'Bearer' : 'DPoP';
  const withProof = caller.proof === 'none' || caller.proof === 'bearer' ? '' : proofLine;
  const mint = session
    ? `{ echo "Authorization: ${scheme} $TOKEN_${v}"; ${withProof}} > ${file}`
    : `$SHOP_CLI token ${caller.kind}${profile} ${args.join(' ')} --headers > ${file}`.replace(/ +/g, ' ');
  // The previous proof of this caller, sent again; a fresh one when there is none yet.
  if (caller.tamper === 'replay-proof') out.push(`if [ -f "$T/last_${v}" ]; then cp "$T/last_${v}" ${file}; else ${mint}; fi`);
  else out.push(mint);
  if (caller.tamper === 'signature') out.push(`break_signature ${file}`);
  if (caller.tamper === 'artifact-signature') out.push(`break_artifact ${file}`);
  if (caller.tamper === 'drop-artifact') out.push(`sed -i '/^Authorization:/!d' ${file}`);
  if (caller.tamper === 'guest-session')
    out.push(`sed -E 's/^(Guest-Session: gs1\\.[^.]+\\.).*/\\1AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/' -i ${file}`);
  // The proof a replay sends again is the last correct one.
  if (caller.kind === 'assistant' && !caller.proof && !caller.tamper) out.push(`cp ${file} "$T/last_${v}"`);
  return out;
}

/** A bash script replaying `steps` in order against `$BASE_URL` (default: `o.baseUrl`), minting credentials as it goes. */
export function renderCurlScript(steps: Step[], o: CurlScriptOptions): string {
  const plan = o.planCaller ?? planCaller;
  const profile = o.profilePath ? ` --profile ${shellQuote(o.profilePath)}` : '';
  const lines = [
    '#!/usr/bin/env bash',
    '# Replays a sequence of shop-conformance explore: one curl per step, credentials minted afresh (docs/explore.md).',
    ...(o.title ? o.title.split('\n').map((l) => `# ${l}`) : []),
    'set -euo pipefail',
    `BASE="\${BASE_URL:-${o.baseUrl.replace(/\/+$/, '').replace(/["\\$`]/g, '\\$&')}}"`,
    `SHOP_CLI="\${SHOP_CLI:-${o.cli ?? 'npx shop-conformance'}}"`,
    'T="$(mktemp -d)"',
    'trap \'rm -rf "$T"\' EXIT',
    'new_uuid() { od -An -N16 -tx1 /dev/urandom | tr -d " \\n" | sed -E "s/^(.{8})(.{4}).(.{3})(.{4})(.{12})$/\\1-\\2-4\\3-\\4-\\5/"; }',
    "# A defect the CLI does not mint: the first characters of the token's signature replaced (same length, no longer valid).",
    'break_signature() { sed -E "s/^(Authorization: [A-Za-z]+ [^.]+\\.[^.]+\\.)[A-Za-z0-9_-]{8}/\\1AAAAAAAA/" -i "$1"; }',
    '# The same for a forwarded artifact (every header line but Authorization that holds a compact JWS).',
    'break_artifact() { sed -E "/^Authorization:/! s/^([A-Za-z-]+: [^.]+\\.[^.]+\\.)[A-Za-z0-9_-]{8}/\\1AAAAAAAA/" -i "$1"; }',
    'random_nonce() { head -c 32 /dev/urandom | base64 | tr "+/" "-_" | tr -d "=\\n"; }',
    'nonce_of() { grep -i "^dpop-nonce:" "$1" | tail -n 1 | cut -d" " -f2- | tr -d "\\r" || true; }',
  ];
  const seen = new Set<string>();
  const parts = steps.map((step, i) => {
    const n = i + 1;
    const caller = plan(step.caller);
    const v = variable(caller.identity);
    const url = `"$BASE"${shellWord(step.path)}`;
    const pre: string[] = [];
    const credentials: string[] = [];
    if (caller.unknown) pre.push(`# caller ${shellQuote(caller.unknown)}: not mintable from the CLI; sent without credentials`);
    else if (caller.kind) {
      const first = !seen.has(caller.identity);
      seen.add(caller.identity);
      pre.push(...credentialLines(caller, { v, n, method: step.method, url, profile, first }));
      credentials.push('-H', `@"$T/cred${n}"`);
    }
    const body = bodyLines(step, n);
    pre.push(...body.setup);
    const method = step.method.toUpperCase() === 'HEAD' ? ['--head'] : ['-X', shellWord(step.method)];
    const curl = ['curl', '-sS', '--globoff', '--path-as-is', '-D', `"$T/head${n}"`, '-o', `"$T/out${n}"`, ...method];
    const heading = `### step ${n}: ${step.method} ${step.path} as ${step.caller || 'none'}${step.mutation ? ` (${step.mutation})` : ''}`;
    const post = [`echo ${shellQuote(heading)}`, `cat "$T/head${n}" "$T/out${n}"; echo`];
    if (caller.kind === 'assistant') post.push(`NONCE_${v}="$(nonce_of "$T/head${n}")"`);
    return { pre, send: [...curl, ...credentials, ...headerOptions(step), ...body.options, url].join(' '), post };
  });
  // Steps sent at once (a concurrency finding): credentials first, then every request in the background, then the answers.
  const groupOf = new Map<number, number[]>();
  for (const group of o.parallel ?? [])
    for (const i of group)
      groupOf.set(
        i,
        [...group].sort((x, y) => x - y),
      );
  for (let i = 0; i < parts.length; i++) {
    const group = groupOf.get(i);
    if (group && group[0] === i && group.length > 1) {
      lines.push('', `# steps ${group.map((g) => g + 1).join(', ')} at once`);
      for (const g of group) lines.push(...parts[g]!.pre);
      for (const g of group) lines.push(`${parts[g]!.send} &`);
      lines.push('wait');
      for (const g of group) lines.push(...parts[g]!.post);
    } else if (!group || group.length <= 1) lines.push('', ...parts[i]!.pre, parts[i]!.send, ...parts[i]!.post);
  }
  return lines.join('\n') + '\n';
}
