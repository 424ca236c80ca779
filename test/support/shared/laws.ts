import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import { createEstimator, type ContextView } from "@contextview/core";
import { compactionMarkerOf } from "@contextview/core/tool-results";
import { PROVIDER_CHECKERS, providersAccepting, type ProviderName } from "./providers.js";

/**
 * The laws of DESIGN.md a view can be checked against, one name each, so a failing
 * test or an eval column says which law broke. Law 1 is "inputs untouched", law 2
 * "current request whole" and "tool arguments whole", law 3 the three tool laws,
 * law 4 the budget laws, law 5 "provider order" (the house rules, then OpenAI's,
 * Anthropic's and Gemini's, see {@link viewProblems}; and "something to answer" for a
 * view sent for an answer), law 6 "system text from the system prompt", law 7 "deterministic".
 * "tool results counted" holds the report to the view: the results it says it cleared,
 * compacted or narrowed are those the view shows with a compaction marker, each once.
 * Law 2 has two strengths: "current request whole" (its text is in what the model
 * reads: eval counts this one for every system) and "current request untouched" (the
 * same message, by id, with the same content: what contextview promises).
 */
export const LAWS = [
  "inputs untouched",
  "current request whole",
  "current request untouched",
  "tool arguments whole",
  "tool calls answered",
  "no orphan tool result",
  "no repeated tool call",
  "evidence not beside its message",
  "within the limit",
  "estimate is real",
  "omissions counted",
  "tool results counted",
  "provider order",
  "known message types",
  "something to answer",
  "system text from the system prompt",
  "deterministic",
] as const;

/** The name of one law in {@link LAWS}. */
export type LawName = (typeof LAWS)[number];

/** One breach of one law: the law's name and where it broke (no message content). */
export interface ViewProblem {
  law: LawName;
  detail: string;
}

/**
 * What is known about the call that produced a view. Each law is checked only when
 * what it needs is given: a checker of model calls knows only a limit, a unit test
 * knows the conversation, its snapshot and how to build the view again.
 */
export interface ViewLawInput {
  /**
   * The conversation as the caller built it: the source of the current request, tool
   * arguments and system text; and the gate of `providers` when that is not given.
   */
  conversation?: readonly BaseMessage[];
  /** What the builder received (maybe serialized dicts), read again after the build. */
  messages?: readonly unknown[];
  /** {@link snapshot} of `messages` taken before the build. */
  before?: string;
  /** An independent prompt limit: the view's estimate plus `tools` must fit it. */
  limit?: number;
  /** Tool schemas bound to the call, charged against `limit`. */
  tools?: readonly unknown[];
  /** The estimator the view was built with: the report's total must be its estimate of the view. */
  estimator?: { estimateMessages(messages: readonly BaseMessage[]): number };
  /** Builds the view again from the same input (law 7). */
  rebuild?: () => readonly BaseMessage[];
  /**
   * The providers whose ordering rules the view is held to: by default those
   * `conversation` passes ({@link providersAccepting}), all three without it.
   */
  providers?: readonly ProviderName[];
  /** A view with no user message after the system prompt breaks provider order (a model call always has one). */
  requireUserMessage?: boolean;
  /** The view is sent for an answer: it must not end with an assistant message. */
  awaitsAnswer?: boolean;
}

const estimator = createEstimator();
const KNOWN_TYPES = new Set(["system", "human", "ai", "tool"]);

/** A snapshot of messages for before/after comparisons (content, ids, calls, artifacts). */
export function snapshot(messages: readonly unknown[]): string {
  return JSON.stringify(messages);
}

/**
 * The text of a view a model can read: every message's text content (text blocks
 * and strings, not image data) and the arguments of its tool calls. Ids, metadata
 * and artifacts are not readable and are left out.
 */
export function readableText(view: readonly BaseMessage[]): string {
  const parts: string[] = [];
  for (const message of view) {
    if (typeof message.content === "string") parts.push(message.content);
    else
      for (const block of message.content as unknown[]) {
        if (typeof block === "string") parts.push(block);
        else if (block && typeof block === "object" && (block as { type?: unknown }).type === "text") parts.push(String((block as { text?: unknown }).text ?? ""));
      }
    for (const call of (message as AIMessage).tool_calls ?? []) parts.push(JSON.stringify(call.args ?? {}));
  }
  return parts.join("\n");
}

/** Arguments of a raw call block: an object, or streamed JSON text. */
const blockArgs = (value: unknown): Record<string, unknown> => {
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
};

/**
 * The calls a provider receives from a message: its `tool_calls`, and the `tool_use`
 * (Anthropic) or `tool_call` (LangChain v1) content blocks not among them — read here
 * on their own, not through core's reader, so the laws check what is sent.
 */
const callsOf = (message: BaseMessage | undefined): { id?: string | undefined; name: string; args: Record<string, unknown> }[] => {
  if (message?.type !== "ai") return [];
  const calls: { id?: string | undefined; name: string; args: Record<string, unknown> }[] = [...((message as AIMessage).tool_calls ?? [])];
  if (Array.isArray(message.content)) {
    for (const block of message.content as unknown[]) {
      if (typeof block !== "object" || block === null) continue;
      const b = block as Record<string, unknown>;
      if ((b["type"] !== "tool_use" && b["type"] !== "tool_call") || calls.some((call) => call.id !== undefined && call.id === b["id"])) continue;
      calls.push({ id: typeof b["id"] === "string" ? b["id"] : undefined, name: String(b["name"] ?? ""), args: blockArgs(b["type"] === "tool_use" ? b["input"] : b["args"]) });
    }
  }
  return calls;
};
const isDeepEqual = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The named law breaches of one view (empty when it obeys every law that `input`
 * lets it check). `view` is a {@link ContextView} (its report is checked too) or the
 * messages a model received. "provider order" also holds the breaches of OpenAI's,
 * Anthropic's and Gemini's ordering rules (`openai: message <i>: <rule>`, see
 * `providers.ts`), each checked only when `input.conversation` passes that provider's
 * rules itself (or as `input.providers` says): a conversation the provider already
 * refuses is the caller's.
 *
 * @example
 * expect(viewProblems({ conversation, limit: 3000 }, model.calls[0])).toEqual([]);
 */
export function viewProblems(input: ViewLawInput, view: ContextView | readonly BaseMessage[]): ViewProblem[] {
  const report = "report" in view ? view.report : undefined;
  const messages: readonly BaseMessage[] = "report" in view ? view.messages : view;
  const problems: ViewProblem[] = [];
  const add = (law: LawName, detail: string) => problems.push({ law, detail });

  if (input.messages !== undefined && input.before !== undefined && snapshot(input.messages) !== input.before) add("inputs untouched", "the input messages changed during the build");
  if (input.conversation) requestAndArguments(input.conversation, messages, add);
  toolExchanges(messages, add);
  evidenceBeside(messages, report, add);
  budget(input, report, messages, add);
  order(input, messages, add);
  providerOrder(input, messages, add);
  if (input.conversation) systemText(input.conversation, messages, add);
  if (input.rebuild && JSON.stringify(input.rebuild()) !== JSON.stringify(messages)) add("deterministic", "the same input gave another view");
  return problems;
}

/** Only the breaches of `law`: one `it` per law reads them. */
export function problemsOf(law: LawName, problems: readonly ViewProblem[]): string[] {
  return problems.filter((p) => p.law === law).map((p) => p.detail);
}

type Add = (law: LawName, detail: string) => void;

function requestAndArguments(conversation: readonly BaseMessage[], view: readonly BaseMessage[], add: Add): void {
  // A provider's compaction stands for everything before it: the request is the newest one after it.
  let from = conversation.length - 1;
  while (from > 0 && !holdsCompaction(conversation[from])) from--;
  const live = conversation.slice(Math.max(0, from));
  const request = [...live].reverse().find((m) => m.type === "human");
  if (request) {
    if (!readableText(view).includes(readableText([request]))) add("current request whole", "the text of the current request is not in the view");
    if (request.id !== undefined) {
      const shown = view.find((m) => m.id === request.id);
      if (!shown) add("current request untouched", `the current request ${request.id} is not in the view`);
      else if (!isDeepEqual(shown.content, request.content)) add("current request untouched", `the current request ${request.id} was changed`);
    }
  }
  const original = new Map(conversation.flatMap((m) => callsOf(m).map((c) => [c.id, c.args] as const)));
  for (const message of view) for (const call of callsOf(message)) if (!isDeepEqual(call.args, original.get(call.id))) add("tool arguments whole", `the arguments of tool call ${call.id} changed`);
}

function toolExchanges(view: readonly BaseMessage[], add: Add): void {
  const seen = new Set<string | undefined>();
  for (let i = 0; i < view.length; i++) {
    const message = view[i] as BaseMessage;
    const calls = callsOf(message);
    if (calls.length > 0) {
      const missing = new Set(calls.map((c) => c.id));
      let run = 0;
      for (let j = i + 1; j < view.length && view[j]?.type === "tool"; j++, run++) missing.delete((view[j] as ToolMessage).tool_call_id);
      if (missing.size > 0) add("tool calls answered", `message ${i}: ${missing.size} tool call(s) without a result`);
      if (run > calls.length) add("no repeated tool call", `message ${i}: ${run} results for ${calls.length} call(s)`);
      for (const call of calls) {
        if (seen.has(call.id)) add("no repeated tool call", `message ${i}: tool call ${call.id} appears twice`);
        seen.add(call.id);
      }
    }
    if (message.type === "tool") {
      let k = i - 1;
      while (k >= 0 && view[k]?.type === "tool") k--;
      const caller = view[k];
      if (caller?.type !== "ai" || !callsOf(caller).some((c) => c.id === (message as ToolMessage).tool_call_id)) add("no orphan tool result", `message ${i}: orphan tool result`);
    }
  }
}

/**
 * No durable evidence excerpt is shown beside the message it quotes: a quoted id is not
 * another message of the view, and with a report, a message quoted by its position
 * (no id) is not past the view's cut, where the view shows every message.
 */
function evidenceBeside(view: readonly BaseMessage[], report: ContextView["report"] | undefined, add: Add): void {
  const marker = '{"contextview_evidence"';
  const shown = view.find((m) => typeof m.content === "string" && m.content.includes(marker));
  if (shown === undefined) return;
  const text = shown.content as string;
  let envelope: Record<string, unknown>;
  try {
    envelope = (JSON.parse(text.slice(text.indexOf(marker))) as { contextview_evidence: Record<string, unknown> }).contextview_evidence;
  } catch {
    return;
  }
  const ids = new Set(view.filter((m) => m !== shown).map((m) => m.id));
  const from = report === undefined ? Infinity : report.cut + report.messages.summarized;
  for (const entries of Object.values(envelope)) {
    if (!Array.isArray(entries)) continue;
    for (const entry of entries as { messageId?: unknown; index?: unknown }[]) {
      if (typeof entry?.messageId !== "string" || typeof entry.index !== "number") continue;
      const byPosition = entry.messageId.startsWith("contextview:position:") && entry.index >= from;
      if (ids.has(entry.messageId) || byPosition) add("evidence not beside its message", `evidence quotes message #${entry.index}, which the view shows`);
    }
  }
}

function budget(input: ViewLawInput, report: ContextView["report"] | undefined, view: readonly BaseMessage[], add: Add): void {
  if (input.limit !== undefined) {
    const tokens = estimator.estimateMessages(view) + (input.tools ? estimator.estimateTools(input.tools) : 0);
    if (tokens > input.limit) add("within the limit", `over budget: ${tokens} > ${input.limit}`);
  }
  if (!report) return;
  const total = report.tokens.total;
  if (!(total <= report.limit)) add("within the limit", `total ${total} over limit ${report.limit}`);
  if (!Number.isSafeInteger(total) || total < 0) add("estimate is real", `total ${total} is not a count`);
  else if (input.estimator && input.estimator.estimateMessages(view) !== total) add("estimate is real", `the report says ${total}, the view estimates ${input.estimator.estimateMessages(view)}`);
  omissions(report.messages, add);
  resultCounts(report.toolResults, view, add);
}

/** The report's cleared, compacted and narrowed results are the view's results with a compaction marker, each counted once. */
function resultCounts(counted: ContextView["report"]["toolResults"], view: readonly BaseMessage[], add: Add): void {
  let cleared = 0;
  let shortened = 0;
  for (const message of view) {
    if (message.type !== "tool") continue;
    const form = compactionMarkerOf(message)?.form;
    if (form === "cleared") cleared++;
    else if (form !== undefined) shortened++;
  }
  if (counted.cleared !== cleared) add("tool results counted", `${counted.cleared} cleared in the report, ${cleared} shown cleared`);
  if (counted.compacted + counted.narrowed !== shortened) add("tool results counted", `${counted.compacted} compacted and ${counted.narrowed} narrowed in the report, ${shortened} shown compacted`);
}

/** Every message given is summarized, compacted by the provider, read or unread; every message read is kept or dropped (pins are kept from anywhere). */
function omissions(m: ContextView["report"]["messages"], add: Add): void {
  const compacted = m.providerCompacted;
  if (m.summarized + compacted + m.read + m.unread !== m.inCheckpoint) {
    add("omissions counted", `${m.summarized} summarized + ${compacted} compacted by the provider + ${m.read} read + ${m.unread} unread != ${m.inCheckpoint} in the checkpoint`);
  }
  if (m.dropped < 0 || m.dropped > m.read) add("omissions counted", `${m.dropped} dropped of ${m.read} read`);
  // Shown from what was read, and shown from elsewhere (pins): neither may be negative.
  const keptRead = m.read - m.dropped;
  if (keptRead > m.kept || m.kept - keptRead > m.unread + m.summarized) add("omissions counted", `${m.kept} kept, ${m.read} read, ${m.dropped} dropped, ${m.unread} unread, ${m.summarized} summarized`);
}

// The details keep the words eval has always printed among its order examples.
function order(input: ViewLawInput, view: readonly BaseMessage[], add: Add): void {
  const start = view[0]?.type === "system" ? 1 : 0;
  if (view.slice(start).some((m) => m.type === "system")) add("provider order", "system message after the start");
  if (view.length === start) {
    if (input.requireUserMessage) add("provider order", "no message besides the system prompt");
  } else if (view[start]?.type !== "human" && !holdsCompaction(view[start])) add("provider order", `first message is ${view[start]?.type}, not a user message`);
  for (let i = start + 1; i < view.length; i++) {
    if (callsOf(view[i]).length > 0 && view[i - 1]?.type !== "human" && view[i - 1]?.type !== "tool") add("provider order", `tool-call message ${i} follows ${view[i - 1]?.type}`);
  }
  if (input.awaitsAnswer && view.at(-1)?.type === "ai") add("something to answer", "ends with an assistant message");
  view.forEach((m, i) => {
    if (!KNOWN_TYPES.has(m.type)) add("known message types", `message ${i} of type ${m.type}`);
  });
}

/**
 * An assistant message that holds a provider compaction, which the provider takes as the
 * conversation's start: Anthropic's block (or v1's wrapping it) in its content, or
 * OpenAI's item among the output LangChain sends or in `tool_outputs`.
 */
function holdsCompaction(message: BaseMessage | undefined): boolean {
  if (message?.type !== "ai") return false;
  const isCompaction = (item: unknown) => {
    const block = item as { type?: unknown; value?: { type?: unknown } } | null;
    return (block?.type === "non_standard" ? block.value?.type : block?.type) === "compaction";
  };
  const lists = [message.content, (message.response_metadata as { output?: unknown }).output, (message.additional_kwargs as { tool_outputs?: unknown }).tool_outputs];
  return lists.some((list) => Array.isArray(list) && list.some(isCompaction));
}

function providerOrder(input: ViewLawInput, view: readonly BaseMessage[], add: Add): void {
  const held = input.providers ?? (input.conversation ? providersAccepting(input.conversation) : undefined);
  for (const [provider, check] of PROVIDER_CHECKERS) {
    if (held !== undefined && !held.includes(provider)) continue;
    for (const problem of check(view)) add("provider order", `${provider}: ${problem}`);
  }
}

function systemText(conversation: readonly BaseMessage[], view: readonly BaseMessage[], add: Add): void {
  const allowed = new Set(conversation.filter((m) => m.type === "system").map((m) => readableText([m])));
  view.forEach((m, i) => {
    if (m.type === "system" && !allowed.has(readableText([m]))) add("system text from the system prompt", `system message ${i} holds text that is not the system prompt`);
  });
}

/**
 * The breaches of every view a model received, labelled `view <i>: <law>: <detail>`
 * (empty when every call obeyed every law `input` lets it check).
 *
 * @example
 * expect(callProblems({ limit: 3000, tools, requireUserMessage: true }, model.calls)).toEqual([]);
 */
export function callProblems(input: ViewLawInput, calls: readonly (readonly BaseMessage[])[]): string[] {
  return calls.flatMap((view, i) => viewProblems(input, view).map((p) => `view ${i}: ${p.law}: ${p.detail}`));
}
