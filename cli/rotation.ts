// The fixture profile's previous guest key stands for a rotation begun when the process starts: its stored deadline
// (2099-01-01, so that the file never ages) would lie beyond the spec's 30-day rotation window (AUTH-GUEST-15). `serve`
// on the fixture, the embedded reference, and a run judging a target with the fixture profile all take the deadline as
// 29 days from their start, so that the reference and the suite agree and no warning is raised against the fixture.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Profile } from '../contract/profile.js';
import { FIXTURE_PROFILE } from '../reference/src/paths.js';

/** The spec's 30 days (AUTH-GUEST-15) less one. */
export const ROTATION_DAYS = 29;

/** The previous guest key's deadline of a rotation begun at `now`. */
export const rotationDeadline = (now = new Date()): string => new Date(now.getTime() + ROTATION_DAYS * 86_400_000).toISOString();

export const isFixtureProfile = (path: string): boolean => resolve(path) === FIXTURE_PROFILE;

/** The profile with its rotation begun now (unchanged without a previous key), written to `dir`/profile.json. */
export function writeRotatedProfile(given: Profile, dir: string): { profilePath: string; profile: Profile } {
  const profile: Profile =
    given.secrets.guestSessionKeyPrevious === null
      ? given
      : { ...given, secrets: { ...given.secrets, guestSessionKeyPreviousUntil: rotationDeadline() } };
  const profilePath = join(dir, 'profile.json');
  writeFileSync(profilePath, JSON.stringify(profile, null, 2));
  return { profilePath, profile };
}
