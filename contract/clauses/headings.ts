// The spec's headings and the reasons several clauses share, spelled once for the catalogue's parts (contract/clauses/parts/).
// Spec headings, spelled once.
export const PUR_SERVES = 'What the service does';
export const PUR_RULES = 'What the service does > Rules on scope of the service';
export const RES_PROBLEM = 'Resources and their fields > Problem document (all error bodies)';
export const RES_KINDS = 'Resources and their fields > Caller kinds';
export const RES_GUEST = 'Resources and their fields > Guest session value';
export const RES_RECOVERY = 'Resources and their fields > Account recovery request (POST /internal/account/recover)';
export const RES_WEBHOOK = 'Resources and their fields > Payment webhook success body';
export const STA = 'States and transitions';
export const END_CONV = 'Endpoints';
export const END_PUBLIC = 'Endpoints > Public and special routes';
export const END_OPS = 'Endpoints > Operations (customer, agent and guest traffic)';
export const END_LISTS = 'Endpoints > Operations > Caller lists by name';
export const END_FACTS = 'Endpoints > Operations > Additional route facts';
export const END_RECOVERY = 'Endpoints > Operations > Recovery endpoint results';
export const AUTH_CRED = 'Authentication > Credentials per consumer';
export const AUTH_TOKEN = 'Authentication > Token verification';
export const AUTH_ORDER = 'Authentication > Request processing order';
export const AUTH_SCHEME = 'Authentication > Challenge scheme (chosen before verification)';
export const AUTH_CUST = 'Authentication > Customer authority';
export const AUTH_GUEST = 'Authentication > Guest sessions';
export const AUTH_SCOPE = 'Authentication > Scope translation (delegated callers only)';
export const AUTH_ASST = 'Authentication > Assistant authority';
export const EVT = 'Events';
export const EVT_STREAM = 'Events > Streaming';
export const ERR = 'Errors';
export const ERR_TABLE = 'Errors > Failure table';
export const LIM = 'Limits';
export const LIM_RATE = 'Limits > Rate limiting';
export const VER = 'Versioning';

// Reasons shared by several clauses.
export const NT_NOT_ROUTES =
  'human-only operations are not routes of the service (PUR-HUMAN-3), so the refusal has no request to observe; it happens at the identity provider and the storefront';
export const NT_ATTRIBUTION =
  'actor attribution (origin, channel, actor chain) is internal: the spec shows no response field that carries it';
