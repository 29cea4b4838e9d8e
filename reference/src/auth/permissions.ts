// Account permissions of agents → API scopes (spec, Authentication > Scope translation, the permission table). Pure.
import { BASE_API_SCOPES, PERMISSION_API_SCOPES, PERMISSIONS, type Permission } from '../../../contract/scopes.js';

const isPermission = (p: string): p is Permission => (PERMISSIONS as readonly string[]).includes(p);

/** The API scopes a set of permissions unlocks: always the base scopes; unknown permissions unlock nothing more. */
export function apiScopesOf(permissions: Iterable<string>): Set<string> {
  // [AUTH-SCOPE-6] with no permission an agent gets exactly the base scopes.
  const scopes = new Set<string>(BASE_API_SCOPES);
  // [AUTH-SCOPE-7] [AUTH-SCOPE-8] [AUTH-SCOPE-9] [AUTH-SCOPE-10] each known permission adds its API scopes; unknown ones, nothing.
  for (const p of permissions) if (isPermission(p)) for (const s of PERMISSION_API_SCOPES[p]) scopes.add(s);
  return scopes;
}

/** The permissions whose API scopes include `apiScope` (to tell an agent which account scope it lacks). */
export function permissionsGranting(apiScope: string): Permission[] {
  return PERMISSIONS.filter((p) => PERMISSION_API_SCOPES[p].includes(apiScope));
}
