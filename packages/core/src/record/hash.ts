import { createHash } from "node:crypto";
import { safeJson } from "../estimate.js";
import { kindOf, toBaseMessage, toolCallsOf, type MessageInput } from "../messages.js";

const DOMAIN = "contextview.view-record.v1\n";

/** SHA-256 (hex) of a text, for the inputs of a view record. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(DOMAIN).update(text).digest("hex");
}

/**
 * SHA-256 (hex) of the messages a view read: `[0, lead)` and `[from, to)`, each as
 * role, id, content, tool calls and `tool_call_id`, length-prefixed.
 */
export function readMessagesHash(messages: readonly MessageInput[], lead: number, from: number, to: number): string {
  const hash = createHash("sha256").update(DOMAIN);
  const add = (part: string) => hash.update(`${part.length}:`).update(part);
  const addMessage = (i: number) => {
    const message = toBaseMessage(messages[i] as MessageInput, i);
    add(kindOf(messages[i], i));
    add(message.id ?? "");
    add(typeof message.content === "string" ? message.content : safeJson(message.content));
    for (const call of toolCallsOf(message)) {
      add(call.id ?? "");
      add(call.name);
      add(safeJson(call.args ?? {}));
    }
    const toolCallId = (message as { tool_call_id?: unknown }).tool_call_id;
    if (typeof toolCallId === "string") add(toolCallId);
  };
  for (let i = 0; i < Math.min(lead, to); i++) addMessage(i);
  add("|");
  for (let i = Math.max(from, lead); i < to; i++) addMessage(i);
  return hash.digest("hex");
}
