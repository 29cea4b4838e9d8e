// Conversations of an assistant. The spec fixes only their prefix, /assistant/conversations (Public and special routes),
// and shows neither their methods nor their payloads: routes and bodies are the target's own, learned from its description
// documents by the contract's operationIds (conformance/engine/transport/target.ts). The reference's are in docs/conversations.md.
import { learned } from '../../engine/runner/check.js';
import type { ShopResponse } from '../../engine/transport/http.js';
import type { AssistantAgent } from './assistant.js';
import { brief, fail, failSetup } from '../../lib/assert.js';
import { lastSegment } from '../../lib/location.js';
import { setPointer } from '../../lib/openapi-schema.js';
import { locationOf } from './location.js';
import { CONVERSATIONS_PATH } from '../../../contract/routes.js';

/** The prefix the spec fixes for the conversation routes. */
export const COLLECTION = CONVERSATIONS_PATH;

/** The target's route of a conversation operation, with the conversation id filled in. */
export function conversationRoute(operationId: string, id?: string): { method: string; path: string } {
  const t = learned();
  return { method: t.operation(operationId).method, path: id === undefined ? t.path(operationId) : t.path(operationId, id) };
}

/** Sends one conversation operation as the assistant, by its route in the target's documents. */
export function sendConversation(agent: AssistantAgent, operationId: string, id?: string, json?: unknown) {
  const { method, path } = conversationRoute(operationId, id);
  return agent.request(method, path, json === undefined ? {} : { json });
}

/** The body that opens a direct conversation: the document's example (the reference's is `{ mode: "direct" }`). */
export const openBody = (): unknown => learned().body('openConversation');

/**
 * A body that opens a *direct* conversation (the spec's word: "open direct conversation"): the document's example with
 * `direct` set at the member whose `enum` allows it. Where no member allows `direct`, the example is taken as one.
 */
export function directOpenBody(): unknown {
  const op = learned().operation('openConversation');
  const pointer = op.requestBody?.enums?.direct;
  return pointer === undefined ? openBody() : setPointer(structuredClone(openBody() ?? {}), pointer, 'direct');
}

/** A message body with `text`, as the target describes it. */
export const messageOf = (text: string): unknown => learned().body('postConversationMessage', { 'message-text': text });

/**
 * Opens a conversation with the body of the target's document. Past the DPoP and session admission an open must succeed:
 * a refusal fails the conversation routes' clause. `handoff` uses the reference's body (reference-level checks only).
 */
export async function openConversation(
  agent: AssistantAgent,
  mode: 'direct' | 'handoff' = 'direct',
): Promise<{ id: string; res: ShopResponse }> {
  const { method, path } = conversationRoute('openConversation');
  const json = mode === 'direct' ? directOpenBody() : { mode };
  const { res } = await agent.request(method, path, { json });
  if (res.status < 200 || res.status > 299)
    failSetup(`${method} ${path} with the body of the description document, by a signed-in DPoP session`, '2xx', brief(res), {
      clause: 'END-PUBLIC-19',
    });
  const location = locationOf(agent.shop, res, path);
  const id = typeof res.body?.id === 'string' ? res.body.id : location ? lastSegment(location.url) : undefined;
  if (!id) fail(`${method} ${path}: the new conversation's id`, 'an `id` member or a Location', brief(res), { clause: 'END-PUBLIC-19' });
  return { id, res };
}

/** A request body of exactly `bytes` bytes: a valid message padded with JSON whitespace before its closing brace. */
export function messageBody(bytes: number): string {
  const core = JSON.stringify(messageOf('A message padded to size.'));
  if (!core.endsWith('}') || core.length > bytes) throw new TypeError(`cannot pad a message body to ${bytes} bytes`);
  return core.slice(0, -1) + ' '.repeat(bytes - core.length) + '}';
}
