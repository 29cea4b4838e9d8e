// Challenges (RFC 9110 §11.6.1): the WWW-Authenticate header parsed whole, one scheme's parameters judged.
import { ChallengeParseError, findChallenge, parseChallenges, type Challenge } from '../www-authenticate.js';
import { fail, type ClauseOption } from './failure.js';
import type { HttpResult } from './response.js';

export interface ChallengeExpectation extends ClauseOption {
  scheme: string;
  /** The challenge's `error` parameter. */
  error?: string;
  /** Further parameters (names case-insensitive); a value of `undefined` requires the parameter to be absent. */
  params?: Record<string, string | undefined>;
}

/** Finds the challenge of `scheme` in WWW-Authenticate (which must parse as a whole) and checks its parameters. */
export function expectChallenge(res: Pick<HttpResult, 'headers'>, want: ChallengeExpectation): Challenge {
  const on = { clause: want.clause };
  const header = res.headers.get('www-authenticate');
  if (header === null) fail('WWW-Authenticate header', `a ${want.scheme} challenge`, null, on);
  let challenges: Challenge[];
  try {
    challenges = parseChallenges(header);
  } catch (err) {
    if (err instanceof ChallengeParseError) fail(`WWW-Authenticate syntax (${err.reason})`, 'RFC 9110 §11.6.1 challenges', header, on);
    throw err;
  }
  const challenge = findChallenge(challenges, want.scheme);
  if (!challenge)
    fail(
      'WWW-Authenticate scheme',
      want.scheme,
      challenges.map((c) => c.scheme),
      on,
    );
  const expected: Record<string, string | undefined> = { ...(want.error !== undefined ? { error: want.error } : {}) };
  for (const [name, value] of Object.entries(want.params ?? {})) expected[name.toLowerCase()] = value;
  for (const [name, value] of Object.entries(expected)) {
    const actual = Object.hasOwn(challenge.params, name) ? challenge.params[name] : undefined;
    if (actual !== value) fail(`${challenge.scheme} challenge parameter "${name}"`, value ?? 'absent', actual ?? 'absent', on);
  }
  return challenge;
}
