import { jsonText } from "../estimate.js";
import { Slicer } from "../evidence/slicer.js";
import { kindOf, toBaseMessage, toolCallsOf, type MessageInput } from "../messages.js";
import { Sha256 } from "../sha256.js";

const DOMAIN = "contextview.summary-prefix.v1\n";

/**
 * SHA-256 (hex) of `messages[0, n)` as the summary cache sees them: role, id,
 * content, tool calls and `tool_call_id` of each message, length-prefixed. Works
 * on messages without ids, and yields to the event loop on long prefixes.
 *
 * @example
 * ```ts
 * const hash = await summaryPrefixHash(messages, state.summary.prefixN);
 * ```
 */
export async function summaryPrefixHash(messages: readonly MessageInput[], n: number, signal?: AbortSignal): Promise<string> {
  const hash = Sha256.create(DOMAIN);
  const slicer = new Slicer(signal);
  const add = (part: string) => hash.update(`${part.length}:`).update(part);
  for (let i = 0; i < n; i++) {
    const kind = kindOf(messages[i], i);
    const message = toBaseMessage(messages[i] as MessageInput, i);
    add(kind);
    add(message.id ?? "");
    add(typeof message.content === "string" ? message.content : jsonText(message.content, `messages[${i}].content`));
    toolCallsOf(message).forEach((call, j) => {
      add(call.id ?? "");
      add(call.name);
      add(jsonText(call.args ?? {}, `messages[${i}].tool_calls[${j}].args`));
    });
    const toolCallId = (message as { tool_call_id?: unknown }).tool_call_id;
    if (typeof toolCallId === "string") add(toolCallId);
    if (slicer.due()) await slicer.pause();
  }
  return hash.hex();
}
