// check(): one conformance check as a Playwright test, tagged with its clause IDs, annotated with the requirement
// sentences and severity, skipped with a reason when the profile does not claim its capability, and reported with a
// transcript of its HTTP exchanges when it fails. A SHOULD-level failure is a warning unless --strict.
import { randomUUID } from 'node:crypto';
import { test as base, type TestInfo } from '@playwright/test';
import type { Profile } from '../../contract/profile.js';
import { CLAUSES_BY_ID } from '../clauses/index.js';
import { CheckFailure } from '../lib/assert.js';
import { createMinter, type Minter } from '../lib/mint.js';
import { newGuestSession } from '../lib/guest-session.js';
import { ShopHttp } from './http.js';
import { runParams, type RunParams } from './params.js';
import { formatExchange, redactor } from './transcript.js';

export type Capability = keyof Profile['capabilities'];
export type Level = 'spec' | 'reference';

export interface CheckSpec {
  /** Stable check id, e.g. `auth.no-token`. */
  id: string;
  title: string;
  /** Clause IDs of conformance/clauses/catalogue.ts this check enforces. */
  clauses: readonly string[];
  /** `reference`: the shape is the reference's choice where the spec says "not shown". */
  level?: Level;
  requires?: readonly Capability[];
  /** The check needs the fixture seed's data (accounts, products) to exist on the target. */
  seed?: boolean;
}

export interface Shop {
  readonly params: RunParams;
  readonly profile: Profile;
  readonly docsUrl: string;
  readonly mint: Minter;
  readonly http: ShopHttp;
  /** A subject no other check uses: checks that write never share state, so workers and reruns agree. */
  subject(prefix?: string): string;
  /** A fresh, validly signed guest session (a new cart). */
  guestSession(): string;
  readonly info: TestInfo;
}

export const CHECK_IDS = new Set<string>();

const test = base.extend<{ shop: Shop }>({
  // eslint-disable-next-line no-empty-pattern
  shop: async ({}, use, info) => {
    const params = runParams();
    const http = new ShopHttp(params.baseUrl, params.tls);
    await use({
      params,
      profile: params.profile,
      docsUrl: params.profile.docsUrl,
      mint: createMinter(params.profile),
      http,
      subject: (prefix = 'chk') => `${prefix}_${randomUUID().replace(/-/g, '')}`,
      guestSession: () => newGuestSession(params.profile.secrets.guestSessionKey),
      info,
    });
    http.close();
  },
});

export function severityOf(clauses: readonly string[]): 'MUST' | 'SHOULD' {
  return clauses.some((id) => CLAUSES_BY_ID.get(id)?.severity === 'MUST') ? 'MUST' : 'SHOULD';
}

type TestArgs = Parameters<typeof test>;

/**
 * The arguments of one Playwright test for a check. Check files call `test(...check(spec, body))` themselves, so that
 * Playwright records the check file's own location (reports, JUnit `file` attributes), not this module's.
 */
export function check(spec: CheckSpec, body: (shop: Shop) => Promise<void>): [TestArgs[0], NonNullable<TestArgs[1]> & object, (args: { shop: Shop }, info: TestInfo) => Promise<void>] {
  if (CHECK_IDS.has(spec.id)) throw new Error(`duplicate check id ${spec.id}`);
  CHECK_IDS.add(spec.id);
  for (const id of spec.clauses) if (!CLAUSES_BY_ID.has(id)) throw new Error(`check ${spec.id} cites unknown clause ${id}`);
  const level = spec.level ?? 'spec';
  const severity = severityOf(spec.clauses);
  return [
    `[${spec.id}] ${spec.title}`,
    {
      tag: [...spec.clauses.map((c) => `@${c}`), `@${level}`, `@${severity}`],
      annotation: [
        { type: 'check', description: spec.id },
        { type: 'severity', description: severity },
        ...spec.clauses.map((c) => ({ type: 'clause', description: `${c}: ${CLAUSES_BY_ID.get(c)!.text}` })),
      ],
    },
    async ({ shop }, info) => {
      for (const cap of spec.requires ?? []) {
        test.skip(!shop.profile.capabilities[cap], `the profile does not claim the capability "${cap}"`);
      }
      try {
        await body(shop);
      } catch (err) {
        // test.skip() inside a body throws to stop it: a skip, not a failure.
        if (info.expectedStatus === 'skipped') throw err;
        const redact = redactor(shop.profile, shop.params.showSecrets);
        const transcript = shop.http.exchanges.map((x) => formatExchange(x, redact)).join('\n\n');
        const clauses = spec.clauses.map((c) => `  ${c}: ${CLAUSES_BY_ID.get(c)!.text}`).join('\n');
        const what = err instanceof CheckFailure ? err.message : err instanceof Error ? err.message : String(err);
        const message = `${what}\n\nClauses (${severity}):\n${clauses}\n\nTranscript (${shop.http.exchanges.length} exchanges):\n${transcript || '  (none)'}`;
        await info.attach('transcript.txt', { body: transcript, contentType: 'text/plain' });
        if (severity === 'SHOULD' && !shop.params.strict) {
          info.annotations.push({ type: 'warning', description: what });
          return;
        }
        const failure = new Error(message);
        failure.stack = message;
        throw failure;
      }
    },
  ];
}

/** Ends a check that finds at run time that the target cannot show what it looks at: a skip with the reason. */
export function notApplicable(reason: string): never {
  test.skip(true, reason);
  throw new Error(`not applicable: ${reason}`);
}

export { test };
