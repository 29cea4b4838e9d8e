// Operations of this group are added here; app.ts registers every route of the exported list.
import type { RouteDef } from './define.js';

export const accountRoutes: RouteDef[] = [];
