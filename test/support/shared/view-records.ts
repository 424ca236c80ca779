import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { createContextManager } from "@contextview/core";
import { viewRecordOf } from "@contextview/core/internal";
import type { ConversationKey, ViewRecordEntry } from "@contextview/core/store";

/**
 * A real record of a one-message view (`h<n>`, "question n", with evidence), recorded at a
 * fixed time so that listings compare exactly. `system` varies the stored input texts.
 *
 * @example
 * ```ts
 * await store.recordView(key, await viewRecordEntry(1, { userId: "u", conversationId: "c" }));
 * ```
 */
export async function viewRecordEntry(n: number, key: ConversationKey, system = "Be careful.", source = "test"): Promise<ViewRecordEntry> {
  const request = { messages: [new HumanMessage({ id: `h${n}`, content: `question ${n}` })], key, systemPrompt: system, evidence: new AIMessage({ content: "earlier: rent 900", id: "ev" }) };
  return viewRecordOf(request, await createContextManager().build(request), { source, now: 1_700_000_000_000 + n });
}
