import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";

// The message-order rules of three providers, each as its LangChain adapter sends a
// view: a view that breaks one is rejected by the API (HTTP 400) before the model reads
// it. Each checker returns its breaches as `message <i>: <rule>` (empty when the view
// passes). The rules, and whose they are:
// - OpenAI chat completions: "An assistant message with 'tool_calls' must be followed by
//   tool messages responding to each 'tool_call_id'" and "messages with role 'tool' must
//   be a response to a preceding message with 'tool_calls'" (one result per id, nothing
//   in between); system/developer instructions come first.
// - Anthropic messages (@langchain/anthropic `_convertMessagesToAnthropicPayload`): only
//   a leading system message becomes `system`, a later one throws; tool messages become
//   user-role `tool_result` blocks, runs of them one user message; the API combines
//   consecutive same-role turns, the first turn must be user, each `tool_use` needs a
//   `tool_result` in the very next user turn (results before any text there), no
//   `tool_result` without its `tool_use`, and no message or text block may be empty
//   (but the final assistant one).
// - Gemini generateContent (@langchain/google-common `formatContents`): the system
//   instruction is the first message only; human → user, AI → model, tool → function,
//   adjacent function contents merged; the first content is user; a functionCall turn
//   comes right after a user or function turn and is answered by the next content with
//   one functionResponse per call; no two model turns in a row; no content without parts
//   and no empty text part.

/** The calls an adapter reads from `tool_calls`; Anthropic's also reads `tool_use` content blocks. */
function toolCallIds(message: BaseMessage, withBlocks: boolean): string[] {
  if (message.type !== "ai") return [];
  const ids = ((message as AIMessage).tool_calls ?? []).map((call) => String(call.id));
  if (withBlocks && Array.isArray(message.content))
    for (const block of message.content as unknown[]) {
      const b = block as { type?: unknown; id?: unknown };
      if ((b.type === "tool_use" || b.type === "tool_call") && !ids.includes(String(b.id))) ids.push(String(b.id));
    }
  return ids;
}

const resultId = (message: BaseMessage) => String((message as ToolMessage).tool_call_id);
const KNOWN = new Set(["system", "human", "ai", "tool"]);

/** A text that providers refuse as a text block: empty or whitespace only. */
const blank = (text: unknown) => typeof text !== "string" || text.trim() === "";

/** The parts a message's content becomes: text blocks (blank ones noted), other blocks; an empty string makes no part. */
function contentParts(content: BaseMessage["content"]): { parts: number; blankText: number } {
  if (typeof content === "string") return content === "" ? { parts: 0, blankText: 0 } : { parts: 1, blankText: blank(content) ? 1 : 0 };
  let parts = 0;
  let blankText = 0;
  for (const block of content as unknown[]) {
    const b = (typeof block === "string" ? { type: "text", text: block } : block) as { type?: unknown; text?: unknown };
    if (b.type === "tool_use" || b.type === "tool_call") continue;
    parts++;
    if (b.type === "text" && blank(b.text)) blankText++;
  }
  return { parts, blankText };
}

/** Leading system messages are instructions; any later one breaks the rule `what`. */
function leadingSystem(view: readonly BaseMessage[], most: number, what: string, out: string[]): number {
  let start = 0;
  while (start < view.length && start < most && view[start]?.type === "system") start++;
  view.forEach((m, i) => {
    if (!KNOWN.has(m.type)) out.push(`message ${i}: message type ${m.type} has no role`);
    else if (m.type === "system" && i >= start) out.push(`message ${i}: ${what}`);
  });
  return start;
}

/**
 * OpenAI chat completions: system (developer) messages first; each assistant message
 * with `tool_calls` followed at once by one tool message per call id (none missing,
 * none extra, none repeated, nothing in between); no tool message without its call.
 *
 * @example
 * expect(openAIOrderProblems(view.messages)).toEqual([]);
 */
export function openAIOrderProblems(view: readonly BaseMessage[]): string[] {
  const out: string[] = [];
  leadingSystem(view, Infinity, "system message after the conversation started", out);
  for (let i = 0; i < view.length; i++) {
    const message = view[i] as BaseMessage;
    if (message.type === "tool") {
      out.push(`message ${i}: tool message without a preceding assistant message with its tool call`);
      continue;
    }
    const calls = toolCallIds(message, false);
    if (calls.length === 0) continue;
    const open = new Set(calls);
    let j = i + 1;
    for (; j < view.length && view[j]?.type === "tool"; j++) {
      const id = resultId(view[j] as BaseMessage);
      if (!open.delete(id)) out.push(`message ${j}: tool message ${id} answers no open call of message ${i}`);
    }
    for (const id of open) out.push(`message ${i}: tool call ${id} not answered by the tool messages right after it`);
    i = j - 1;
  }
  return out;
}

interface AnthropicTurn {
  role: "user" | "assistant";
  /** Source message index per block, in order. */
  blocks: { kind: "tool_use" | "tool_result" | "other"; id?: string; at: number }[];
}

/**
 * Anthropic messages, as @langchain/anthropic sends a view: only a leading system
 * message; the first turn a user turn; consecutive same-role messages combined into
 * one turn, so roles alternate (tool results are user-role `tool_result` blocks); every
 * `tool_use` answered by a `tool_result` in the very next user turn, results before
 * any text there; no `tool_result` without its `tool_use`; no empty message (but a
 * final assistant one) and no blank text block; at most one `compaction` block, the
 * conversation's first (then the first turn may be the assistant's).
 *
 * @example
 * expect(anthropicOrderProblems(view.messages)).toEqual([]);
 */
export function anthropicOrderProblems(view: readonly BaseMessage[]): string[] {
  const out: string[] = [];
  const start = leadingSystem(view, 1, "system message not first (the adapter throws)", out);
  const turns: AnthropicTurn[] = [];
  for (let i = start; i < view.length; i++) {
    const message = view[i] as BaseMessage;
    if (!KNOWN.has(message.type) || message.type === "system") continue;
    const role = message.type === "ai" ? "assistant" : "user";
    const blocks: AnthropicTurn["blocks"] =
      message.type === "tool" ? [{ kind: "tool_result", id: resultId(message), at: i }] : toolCallIds(message, true).map((id) => ({ kind: "tool_use" as const, id, at: i }));
    const { parts, blankText } = contentParts(message.content);
    if (blankText > 0) out.push(`message ${i}: blank text content block`);
    if (message.type !== "tool" && parts + blocks.length === 0 && i !== view.length - 1) out.push(`message ${i}: empty content`);
    if (message.type !== "tool" && parts > 0) blocks.push({ kind: "other", at: i });
    const last = turns.at(-1);
    if (last?.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks });
  }
  // A compaction block must be the conversation's first block, and there may be one only; it may start an assistant turn.
  const compactions: number[] = [];
  for (let i = start; i < view.length; i++) {
    const content = (view[i] as BaseMessage).content;
    if (!Array.isArray(content)) continue;
    content.forEach((block, b) => {
      const { type, value } = block as { type?: unknown; value?: { type?: unknown } };
      if ((type === "non_standard" ? value?.type : type) === "compaction") compactions.push(i === start && b === 0 ? -1 : i);
    });
  }
  for (const at of compactions) if (at >= 0) out.push(`message ${at}: a compaction block that is not the conversation's first block`);
  if (compactions.length > 1) out.push(`message ${start}: ${compactions.length} compaction blocks`);
  const compactedStart = compactions[0] === -1;
  if (turns[0] !== undefined && turns[0].role !== "user" && !compactedStart) out.push(`message ${turns[0].blocks[0]?.at ?? start}: the conversation starts with an assistant turn`);
  turns.forEach((turn, t) => {
    if (turn.role !== "user") return;
    const previous = turns[t - 1];
    const uses = new Set(previous?.role === "assistant" ? previous.blocks.filter((b) => b.kind === "tool_use").map((b) => b.id) : []);
    let textSeen = false;
    for (const block of turn.blocks) {
      if (block.kind === "other") textSeen = true;
      if (block.kind !== "tool_result") continue;
      if (!uses.delete(block.id)) out.push(`message ${block.at}: tool_result ${block.id} without a tool_use in the assistant turn before it`);
      else if (textSeen) out.push(`message ${block.at}: tool_result ${block.id} after text in its user turn`);
    }
    for (const id of uses) out.push(`message ${previous?.blocks.find((b) => b.id === id)?.at}: tool_use ${id} not answered in the next user turn`);
  });
  const last = turns.at(-1);
  if (last?.role === "assistant") for (const b of last.blocks) if (b.kind === "tool_use") out.push(`message ${b.at}: tool_use ${b.id} not answered in the next user turn`);
  return out;
}

interface GeminiContent {
  role: "user" | "model" | "function";
  calls: string[];
  responses: { id: string; at: number }[];
  parts: number;
  at: number;
}

/**
 * Gemini generateContent, as @langchain/google sends a view: the system instruction
 * only first; the first content a user content; a functionCall turn right after a user
 * or function turn, and answered by the next content with one functionResponse per
 * call (adjacent tool messages merge into one function content); no functionResponse
 * without its call; no two model turns in a row; no content without parts and no
 * blank text part.
 *
 * @example
 * expect(geminiOrderProblems(view.messages)).toEqual([]);
 */
export function geminiOrderProblems(view: readonly BaseMessage[]): string[] {
  const out: string[] = [];
  const start = leadingSystem(view, 1, "system message not first (only the first becomes the system instruction)", out);
  const contents: GeminiContent[] = [];
  for (let i = start; i < view.length; i++) {
    const message = view[i] as BaseMessage;
    if (!KNOWN.has(message.type) || message.type === "system") continue;
    if (message.type === "tool") {
      const last = contents.at(-1);
      if (last?.role === "function") last.responses.push({ id: resultId(message), at: i });
      else contents.push({ role: "function", calls: [], responses: [{ id: resultId(message), at: i }], parts: 1, at: i });
      continue;
    }
    const calls = toolCallIds(message, false);
    const { parts, blankText } = contentParts(message.content);
    if (blankText > 0) out.push(`message ${i}: blank text part`);
    if (parts + calls.length === 0) out.push(`message ${i}: content without parts`);
    contents.push({ role: message.type === "ai" ? "model" : "user", calls, responses: [], parts: parts + calls.length, at: i });
  }
  if (contents[0] !== undefined && contents[0].role !== "user") out.push(`message ${contents[0].at}: the first content is ${contents[0].role}, not user`);
  contents.forEach((content, c) => {
    const previous = contents[c - 1];
    if (content.role === "model" && previous?.role === "model") out.push(`message ${content.at}: two model turns in a row`);
    if (content.calls.length > 0 && previous !== undefined && previous.role === "model") out.push(`message ${content.at}: function call turn not right after a user or function turn`);
    if (content.role === "function") {
      const open = new Set(previous?.role === "model" ? previous.calls : []);
      for (const r of content.responses) if (!open.delete(r.id)) out.push(`message ${r.at}: functionResponse ${r.id} without its functionCall in the model turn before it`);
    }
    if (content.calls.length > 0) {
      const next = contents[c + 1];
      const answered = new Set(next?.role === "function" ? next.responses.map((r) => r.id) : []);
      for (const id of content.calls) if (!answered.has(id)) out.push(`message ${content.at}: functionCall ${id} without a functionResponse in the next content`);
    }
  });
  return out;
}

/** A provider whose ordering rules are checked here. */
export type ProviderName = "openai" | "anthropic" | "gemini";

/** Each provider's checker, in the order their breaches are listed. */
export const PROVIDER_CHECKERS: readonly (readonly [ProviderName, (view: readonly BaseMessage[]) => string[]])[] = [
  ["openai", openAIOrderProblems],
  ["anthropic", anthropicOrderProblems],
  ["gemini", geminiOrderProblems],
];

/**
 * The providers whose ordering rules `messages` pass: a view of a conversation is held
 * to a provider's rules only when the conversation itself is one that provider accepts.
 *
 * @example
 * viewProblems({ providers: providersAccepting(messages) }, view);
 */
export function providersAccepting(messages: readonly BaseMessage[]): ProviderName[] {
  return PROVIDER_CHECKERS.filter(([, check]) => check(messages).length === 0).map(([name]) => name);
}

/**
 * The breaches of all three providers' rules, labelled `<provider>: message <i>: <rule>`.
 *
 * @example
 * expect(providerOrderProblems(view.messages)).toEqual([]);
 */
export function providerOrderProblems(view: readonly BaseMessage[]): string[] {
  return PROVIDER_CHECKERS.flatMap(([name, check]) => check(view).map((p) => `${name}: ${p}`));
}
