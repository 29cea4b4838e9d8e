// Conversations of an assistant as the reference serves them (docs/conversations.md): POST /assistant/conversations
// `{ mode }` opens one, POST …/{id}/messages `{ text }` writes. The spec shows neither the methods nor the payloads of
// the conversation routes: a check that needs a conversation is not applicable when the target does not serve these.
import { notApplicable } from '../../engine/check.js';
import type { ShopResponse } from '../../engine/http.js';
import type { AssistantAgent } from '../../lib/assistant.js';
import { brief, fail } from '../../lib/assert.js';

export const COLLECTION = '/assistant/conversations';

/** Opens a conversation through the reference's route; not applicable when the target does not serve it. */
export async function openConversation(agent: AssistantAgent, mode: 'direct' | 'handoff'): Promise<{ id: string; res: ShopResponse }> {
  const { res } = await agent.post(COLLECTION, { json: { mode } });
  if (res.status === 404 || res.status === 405) {
    return notApplicable(`the target does not serve the reference's POST ${COLLECTION} (${res.status}); the spec shows no conversation route`);
  }
  if (res.status !== 201 || typeof res.body?.id !== 'string') {
    // Past the DPoP and session admission, an open must succeed: anything else is the reference's route failing.
    fail(`POST ${COLLECTION} { mode: "${mode}" } by a signed-in DPoP session`, '201 with the conversation id', brief(res), 'END-PUBLIC-19');
  }
  return { id: res.body.id as string, res };
}

/** A request body of exactly `bytes` bytes: a valid message padded with JSON whitespace. */
export function messageBody(bytes: number): string {
  const core = JSON.stringify({ text: 'A message padded to size.' });
  return core.slice(0, -1) + ' '.repeat(bytes - core.length) + '}';
}
