// Assistant conversations (/assistant/conversations…): operations of their own group; app.ts registers every route here.
import type { RouteDef } from './define.js';

export const conversationRoutes: RouteDef[] = [];
