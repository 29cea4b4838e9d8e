// What the target says about itself. The spec leaves some choices open ("not shown"): the paths and methods of the
// operator and conversation routes, request bodies, the header names of forwarded agent artifacts. Every deployment serves
// /openapi.json and /assistant/openapi.json (spec, Public and special routes), so the suite learns those choices there,
// by the contract's operationIds, and never from the reference. The profile's `conventions` override what a document
// says or cannot say (docs/conformance.md, "Interoperability conventions").
import { OPERATIONS_BY_ID, type Operation } from '../../../contract/operations.js';
import type { Profile } from '../../../contract/profile.js';
import { failSetup, notDeclared } from '../../lib/assert.js';
import { enumsOf, exampleFromSchema, getPointer, rolesOf, setPointer, type JsonSchema, type Resolve } from '../../lib/openapi-schema.js';
import { ASSISTANT_DESCRIPTION, CONVERSATIONS_PATH, DESCRIPTION, type DescriptionPath } from '../../../contract/routes.js';

type Json = Record<string, unknown>;

/** Roles a request-body member can carry (`x-shop-role`), so that the suite can fill in a body it did not design. */
export const BODY_ROLES = ['variant', 'quantity', 'payment-method', 'address', 'reason', 'stock-delta', 'message-text'] as const;
export type BodyRole = (typeof BODY_ROLES)[number];

/** Header credentials the spec names without naming their header; security schemes of these names declare them. */
export const ARTIFACT_SCHEMES = {
  invitedAgentContext: { default: 'Invited-Agent-Context', what: 'the signed invited-agent context' },
  assistantBrowserSession: { default: 'Assistant-Browser-Session', what: "the assistant agent's original browser session" },
} as const;
export type ArtifactScheme = keyof typeof ARTIFACT_SCHEMES;

export interface LearnedOperation {
  operationId: string;
  method: string;
  /** Path template, `{name}` segments. */
  path: string;
  pathParams: string[];
  /** Which document described it. */
  document: DescriptionPath;
  /** Whether a success of it is an event stream (`text/event-stream` among its 2xx media types). */
  streams?: boolean;
  /**
   * The optional query parameters the document declares with a default, each at its default: a query that changes
   * nothing of the answer (the spec shows no query parameter; `explore` sends it so that a request carries a query).
   */
  defaultQuery?: Record<string, string>;
  requestBody?: {
    required: boolean;
    schema: JsonSchema | undefined;
    example: unknown;
    roles: Partial<Record<BodyRole, string>>;
    /** Where each string value an `enum` of the body allows sits (JSON Pointers). */
    enums?: Record<string, string>;
    /** The example is the document's own (or the profile's), not one the suite generated from the schema. */
    documented?: boolean;
  };
}

export interface Documents {
  general: Json;
  assistant: Json;
}

const DOC_CLAUSE = { [DESCRIPTION.path]: 'END-PUBLIC-2', [ASSISTANT_DESCRIPTION.path]: 'END-PUBLIC-4' } as const;

/** Parses one description document: JSON, an object, OpenAPI 3.x; anything else fails the clause that requires it. */
export function parseDocument(path: keyof typeof DOC_CLAUSE, res: { status: number; text: string }): Json {
  const clause = DOC_CLAUSE[path];
  if (res.status !== 200)
    failSetup(`GET ${path} (the deployment's description document)`, 200, `${res.status} ${res.text.slice(0, 200)}`, { clause });
  let doc: unknown;
  try {
    doc = JSON.parse(res.text);
  } catch {
    failSetup(`GET ${path}: the description document`, 'JSON', res.text.slice(0, 200), { clause });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    failSetup(`GET ${path}: the description document`, 'a JSON object', doc, { clause });
  const version = (doc as Json).openapi;
  if (typeof version !== 'string' || !version.startsWith('3.'))
    failSetup(`GET ${path}: the document's "openapi" member`, 'an OpenAPI 3.x version', version, { clause });
  return doc as Json;
}

/** The clause a missing or unusable operation fails: its row of the operations table, or its group's rule. */
export function clauseOfOperation(op: Operation): string {
  if (op.group === 'operator') return 'PUR-RULE-3';
  if (op.group === 'conversation') return 'END-PUBLIC-19';
  return `END-OPS-${op.operationId.toUpperCase()}-1`;
}

export class Target {
  private readonly operations = new Map<string, LearnedOperation>();
  /** Every operation of both documents, in their order, those without an operationId named `METHOD path`. */
  private readonly described: LearnedOperation[] = [];
  constructor(
    readonly documents: Documents,
    private readonly conventions: NonNullable<Profile['conventions']>,
  ) {
    for (const [document, doc] of [
      [DESCRIPTION.path, documents.general],
      [ASSISTANT_DESCRIPTION.path, documents.assistant],
    ] as const) {
      const resolve = resolver(doc);
      for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
        for (const [method, raw] of Object.entries(item ?? {})) {
          if (!/^(get|put|post|delete|patch)$/.test(method) || typeof raw !== 'object' || raw === null) continue;
          const operation = raw as Json;
          const id = operation.operationId;
          const learnedOp: LearnedOperation = {
            operationId: typeof id === 'string' && id !== '' ? id : `${method.toUpperCase()} ${path}`,
            method: method.toUpperCase(),
            path,
            pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
            document,
            ...(streamsOf(operation) ? { streams: true } : {}),
            ...defaultQueryOf(operation, resolve),
            ...requestBodyOf(operation, resolve),
          };
          this.described.push(learnedOp);
          if (typeof id !== 'string' || this.operations.has(id)) continue;
          this.operations.set(id, learnedOp);
        }
      }
    }
  }

  /** Whether a document describes the operation (routes the spec leaves open may be absent from a deployment). */
  has(operationId: string): boolean {
    if (this.operations.has(operationId)) return true;
    return OPERATIONS_BY_ID.get(operationId)?.group === 'conversation' && this.conversationByShape(operationId) !== undefined;
  }

  /**
   * A conversation operation the documents describe under another id, recognised by its shape under the spec's
   * `/assistant/conversations...` prefix (its methods are not shown): the collection's GET lists and its POST opens; an
   * item's GET reads it; under an item, the write whose body declares `x-shop-role: message-text` posts a message, the
   * GET whose success is `text/event-stream` streams the events, and the one other body-less POST closes it. Only a
   * single match counts; none or several leave the operation undeclared.
   */
  private conversationByShape(operationId: string): LearnedOperation | undefined {
    const base = CONVERSATIONS_PATH;
    const ops = this.described.filter((op) => op.path === base || op.path.startsWith(`${base}/`));
    const item = /^\/\{[^}]+\}$/;
    const under = /^\/\{[^}]+\}\/[^/{}]+$/;
    const rest = (op: LearnedOperation) => op.path.slice(base.length);
    const writes = ['POST', 'PUT', 'PATCH'];
    const candidates: Record<string, (op: LearnedOperation) => boolean> = {
      listConversations: (op) => op.method === 'GET' && op.path === base,
      openConversation: (op) => op.method === 'POST' && op.path === base,
      getConversation: (op) => op.method === 'GET' && item.test(rest(op)),
      postConversationMessage: (op) =>
        writes.includes(op.method) && under.test(rest(op)) && op.requestBody?.roles['message-text'] !== undefined,
      streamConversationEvents: (op) => op.method === 'GET' && under.test(rest(op)) && op.streams === true,
      closeConversation: (op) => op.method === 'POST' && under.test(rest(op)) && op.requestBody?.roles['message-text'] === undefined,
    };
    const match = candidates[operationId];
    // One route described in both documents is one operation.
    const found = match ? [...new Map(ops.filter(match).map((op) => [`${op.method} ${op.path}`, op])).values()] : [];
    return found.length === 1 ? found[0] : undefined;
  }

  /**
   * The operation as the target serves it. Routes the spec shows keep the spec's method and path whatever the document
   * says (a document that disagrees is judged by the description checks, not trusted here); routes it leaves open come
   * from the document, and a claimed route the documents do not describe fails the route's clause.
   */
  operation(operationId: string): LearnedOperation {
    const contract = OPERATIONS_BY_ID.get(operationId);
    if (!contract) throw new TypeError(`contract has no operation ${operationId}`);
    const learned =
      this.operations.get(operationId) ?? (contract.group === 'conversation' ? this.conversationByShape(operationId) : undefined);
    const open = contract.group === 'operator' || contract.group === 'conversation';
    if (!learned && open)
      notDeclared(
        `the route of ${operationId} (the spec does not show it)`,
        `an operation with operationId "${operationId}" in ${contract.group === 'conversation' ? ASSISTANT_DESCRIPTION.path : DESCRIPTION.path}`,
      );
    const base = learned ?? {
      operationId,
      method: contract.method,
      path: contract.path,
      pathParams: [],
      document: DESCRIPTION.path,
    };
    const method = open ? base.method : contract.method;
    const path = open ? base.path : contract.path;
    const override = this.conventions.bodies?.[operationId];
    const body = base.requestBody ?? { required: false, schema: undefined, example: undefined, roles: {} };
    return {
      ...base,
      method,
      path,
      pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
      ...(base.requestBody || override
        ? {
            requestBody: {
              ...body,
              example: override?.example ?? body.example,
              documented: override?.example !== undefined || body.documented === true,
              roles: { ...body.roles, ...(override?.roles ?? {}) },
            },
          }
        : {}),
    };
  }

  /** The operation's URL path with its parameters filled in, in the order of the template (percent-encoded). */
  path(operationId: string, ...values: string[]): string {
    const op = this.operation(operationId);
    let i = 0;
    return op.path.replace(/\{[^}]+\}/g, () => {
      const v = values[i++];
      if (v === undefined) throw new TypeError(`${operationId} needs ${op.pathParams.length} path parameters`);
      return encodeURIComponent(v);
    });
  }

  /**
   * A valid request body: the document's example (or one generated from the schema), with each role given set at the
   * member that carries it; `ifDeclared` roles (the acting caller's own values) only where the body declares them. A
   * role the body does not declare leaves the check not judged (NotDeclared).
   */
  body(operationId: string, roles: Partial<Record<BodyRole, unknown>> = {}, ifDeclared: Partial<Record<BodyRole, unknown>> = {}): unknown {
    const op = this.operation(operationId);
    const rb = op.requestBody;
    let body: unknown = structuredClone(rb?.example ?? {});
    // The acting caller's own values (its address, its card) go wherever the body declares their role: the document's
    // example may name another account's (docs/conformance.md, "Request bodies").
    for (const [role, value] of Object.entries(ifDeclared)) {
      const pointer = rb?.roles[role as BodyRole];
      if (pointer !== undefined && value !== undefined && !(role in roles)) body = setPointer(body, pointer, value);
    }
    for (const [role, value] of Object.entries(roles)) {
      const pointer = rb?.roles[role as BodyRole];
      if (pointer === undefined)
        notDeclared(
          `the member of ${operationId}'s request body with x-shop-role "${role}"`,
          `x-shop-role "${role}" on that member, or conventions.bodies.${operationId}.roles.${role}`,
        );
      body = setPointer(body, pointer, value);
    }
    return body;
  }

  /**
   * Every operation the documents describe under /v1/ops/, whatever its operationId (spec, What the service does, rule 1:
   * "/v1/ops/* is operator-only"; the operations under it are "not shown"). Operations without an operationId are named
   * by method and path.
   */
  operatorOperations(): readonly LearnedOperation[] {
    return this.described.filter((op) => op.path === '/v1/ops' || op.path.startsWith('/v1/ops/'));
  }

  /** A described operator read that needs no path parameter (a list or search), when there is one. */
  operatorRead(): LearnedOperation | undefined {
    const reads = this.operatorOperations().filter((op) => op.method === 'GET' && op.pathParams.length === 0);
    // The contract's own list first where the target describes it: the same request as before where both agree.
    return reads.find((op) => OPERATIONS_BY_ID.get(op.operationId)?.group === 'operator') ?? reads[0];
  }

  /**
   * The scopes the documents declare an operation needs: every scope its OpenAPI `security` requirements name (else the
   * document's top-level ones), under whichever scheme. Found by operationId, else by method and path (an operation
   * named `METHOD path`, or a route the spec shows). Undefined when none is named: an empty list declares none.
   */
  securityScopes(operationId: string): readonly string[] | undefined {
    const contract = OPERATIONS_BY_ID.get(operationId);
    const route = /^[A-Z]+ \//.test(operationId) ? operationId : contract && `${contract.method} ${contract.path}`;
    const all = [this.documents.general, this.documents.assistant].flatMap((doc) =>
      Object.entries((doc.paths ?? {}) as Record<string, Json>).flatMap(([path, item]) =>
        Object.entries(item ?? {})
          .filter(([m, raw]) => /^(get|put|post|delete|patch)$/.test(m) && typeof raw === 'object' && raw !== null)
          .map(([m, raw]) => ({ doc, name: `${m.toUpperCase()} ${path}`, op: raw as Json })),
      ),
    );
    const found = all.find((o) => o.op.operationId === operationId) ?? all.find((o) => o.name === route);
    const requirements: unknown = found?.op.security ?? found?.doc.security;
    const scopes = (Array.isArray(requirements) ? requirements : [])
      .flatMap((r: unknown) => (typeof r === 'object' && r !== null ? Object.values(r).flat() : []))
      .filter((s): s is string => typeof s === 'string' && s !== '');
    return scopes.length > 0 ? [...new Set(scopes)] : undefined;
  }

  /**
   * Whether the documents declare the operation a create (spec, Endpoints > Conventions, which shows creates only by
   * example): its one declared success is 201. False where the documents do not describe it.
   */
  declaresCreate(operationId: string): boolean {
    for (const doc of [this.documents.general, this.documents.assistant])
      for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>))
        for (const op of Object.values(item ?? {})) {
          if (typeof op !== 'object' || op === null || (op as Json).operationId !== operationId) continue;
          const ok = Object.keys(((op as Json).responses ?? {}) as Json).filter((st) => /^2(\d\d|XX)$/i.test(st));
          return ok.length === 1 && ok[0] === '201';
        }
    return false;
  }

  /**
   * A refusal of a body built by `body()` for a setup step: a failure of the operation's clause when the body is the
   * target's own example (it refused what it documents), else not judged (the suite generated it from the schema, which
   * may not say everything the target checks).
   */
  refusedBody(operationId: string, what: string, actual: string, clause: string): never {
    if (this.operation(operationId).requestBody?.documented) failSetup(what, '2xx', actual, { clause });
    notDeclared(
      `an example of ${operationId}'s request body (the body generated from its schema was refused: ${actual.slice(0, 120)})`,
      `an example on the operation's request body, or conventions.bodies.${operationId}.example`,
    );
  }

  /** refusedBody for `res`, the answer to the body its description document describes for `operationId`. */
  refusedAnswer(operationId: string, res: { status: number; text: string }, clause: string): never {
    return this.refusedBody(
      operationId,
      `${operationId} with the body the description document describes`,
      `${res.status} ${res.text.slice(0, 200)}`,
      clause,
    );
  }

  /** The value a role has in a body built by `body()` (e.g. the quantity a cart line was added with). */
  roleValue(operationId: string, body: unknown, role: BodyRole): unknown {
    const pointer = this.operation(operationId).requestBody?.roles[role];
    return pointer === undefined ? undefined : getPointer(body, pointer);
  }

  /** The header that carries a forwarded agent artifact: the profile's convention, else the document's scheme, else the reference's. */
  header(scheme: ArtifactScheme): string {
    const fromProfile = this.conventions.headers?.[scheme];
    if (fromProfile) return fromProfile;
    return this.describedCarrier(scheme, ['header'])?.name ?? ARTIFACT_SCHEMES[scheme].default;
  }

  /**
   * What carries an assistant's browser session, the agent's "original browser cookie" (spec, Credentials per consumer):
   * a header or a cookie. The profile's conventions first (`cookies`, then `headers`), else the document's
   * `assistantBrowserSession` apiKey scheme (`in: header` or `in: cookie`), else the reference's header.
   */
  browserCarrier(): ArtifactCarrier {
    const scheme = 'assistantBrowserSession';
    const cookie = this.conventions.cookies?.[scheme];
    if (cookie) return { in: 'cookie', name: cookie };
    const header = this.conventions.headers?.[scheme];
    if (header) return { in: 'header', name: header };
    return this.describedCarrier(scheme, ['header', 'cookie']) ?? { in: 'header', name: ARTIFACT_SCHEMES[scheme].default };
  }

  /** The apiKey security scheme of that name in the description documents, when it is carried as one of `places`. */
  private describedCarrier(scheme: ArtifactScheme, places: readonly ArtifactCarrier['in'][]): ArtifactCarrier | undefined {
    for (const doc of [this.documents.general, this.documents.assistant]) {
      const s = ((doc.components as Json | undefined)?.securitySchemes as Record<string, Json> | undefined)?.[scheme];
      if (s && s.type === 'apiKey' && places.includes(s.in as ArtifactCarrier['in']) && typeof s.name === 'string' && s.name !== '')
        return { in: s.in as ArtifactCarrier['in'], name: s.name };
    }
    return undefined;
  }
}

/** Where a forwarded artifact travels: a header field of that name, or a cookie of that name (`Cookie: <name>=<value>`). */
export interface ArtifactCarrier {
  in: 'header' | 'cookie';
  name: string;
}

function resolver(doc: Json): Resolve {
  return (ref) => {
    if (!ref.startsWith('#/')) return undefined;
    const value = getPointer(doc, ref.slice(1));
    return typeof value === 'object' && value !== null ? (value as JsonSchema) : undefined;
  };
}

/** The optional query parameters with a scalar default, at their default (LearnedOperation.defaultQuery). */
function defaultQueryOf(operation: Json, resolve: Resolve): Pick<LearnedOperation, 'defaultQuery'> {
  const out: Record<string, string> = {};
  for (const raw of (Array.isArray(operation.parameters) ? operation.parameters : []) as Json[]) {
    const p = (typeof raw?.$ref === 'string' ? resolve(raw.$ref) : raw) as Json | undefined;
    if (!p || p.in !== 'query' || p.required === true || typeof p.name !== 'string') continue;
    const schema = (typeof (p.schema as Json | undefined)?.$ref === 'string' ? resolve((p.schema as Json).$ref as string) : p.schema) as
      Json | undefined;
    const d = schema?.default;
    if (typeof d === 'number' || typeof d === 'string' || typeof d === 'boolean') out[p.name] = String(d);
  }
  return Object.keys(out).length > 0 ? { defaultQuery: out } : {};
}

/** Whether one of the operation's 2xx answers is an event stream. */
function streamsOf(operation: Json): boolean {
  const responses = (operation.responses ?? {}) as Record<string, Json>;
  return Object.entries(responses).some(
    ([status, r]) => /^2/.test(status) && Object.keys((r?.content ?? {}) as Json).some((t) => /^text\/event-stream/i.test(t)),
  );
}

function requestBodyOf(operation: Json, resolve: Resolve): Pick<LearnedOperation, 'requestBody'> {
  let rb = operation.requestBody as Json | undefined;
  if (rb && typeof rb.$ref === 'string') rb = resolve(rb.$ref) as Json | undefined;
  if (!rb) return {};
  const content = (rb.content ?? {}) as Record<string, Json>;
  const media = Object.entries(content).find(([type]) => /^application\/([\w.+-]+\+)?json$/i.test(type.split(';')[0]!.trim()))?.[1];
  if (!media) return {};
  const schema = media.schema as JsonSchema | undefined;
  const examples = media.examples as Record<string, { value?: unknown }> | undefined;
  // The document's own example: of the media type, else of its schema (`examples`, `example`, at the top).
  const top = schema && typeof schema.$ref === 'string' ? resolve(schema.$ref) : schema;
  const given =
    media.example ??
    Object.values(examples ?? {}).find((e) => e && 'value' in e)?.value ??
    (Array.isArray(top?.examples) && top.examples.length > 0 ? top.examples[0] : top?.example);
  const example = given ?? (schema ? exampleFromSchema(schema, resolve) : undefined);
  return {
    requestBody: {
      required: rb.required === true,
      schema,
      example,
      roles: schema ? (rolesOf(schema, resolve) as Partial<Record<BodyRole, string>>) : {},
      enums: schema ? enumsOf(schema, resolve) : {},
      documented: given !== undefined,
    },
  };
}
