// Assistant messages as @langchain/anthropic 1.5.11 and @langchain/openai 1.6.0 build them
// (read from their converters: message_outputs.js, converters/responses.js), for tests of
// what the view does with provider reasoning and server-side compaction.
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";

export type Shape = "anthropic" | "openai" | "v1";

/** Marks no readable text may ever carry: signatures, encrypted reasoning, redacted data, compaction payloads. */
export const SECRET_MARKS = ["SIG-", "ENC-", "REDACTED-", "COMPACTED-SECRET"];

const thinkingText = (id: string) => `THOUGHT-${id}: weighing the ledger totals before answering.`;

/** An assistant message of one step: its reasoning, prose, and (when `callId`) one tool call. */
export function assistantStep(shape: Shape, id: string, prose: string, callId?: string, args: Record<string, unknown> = { q: id }): AIMessage {
  const calls = callId === undefined ? [] : [{ id: callId, name: "lookup", args, type: "tool_call" as const }];
  if (shape === "anthropic") {
    const content: Record<string, unknown>[] = [
      { type: "thinking", thinking: thinkingText(id), signature: `SIG-${id}-EqQBCkgIARABGAIiQ` },
      { type: "redacted_thinking", data: `REDACTED-${id}` },
      { type: "text", text: prose },
    ];
    if (callId !== undefined) content.push({ type: "tool_use", id: callId, name: "lookup", input: args });
    return new AIMessage({ id, content: content as never, tool_calls: calls, response_metadata: { model_provider: "anthropic", model: "claude" } });
  }
  if (shape === "v1") {
    const content: Record<string, unknown>[] = [
      { type: "reasoning", reasoning: thinkingText(id), signature: `SIG-${id}-v1` },
      { type: "non_standard", value: { type: "redacted_thinking", data: `REDACTED-${id}` } },
      { type: "text", text: prose },
    ];
    if (callId !== undefined) content.push({ type: "tool_call", id: callId, name: "lookup", args });
    return new AIMessage({ id, content: content as never, tool_calls: calls, response_metadata: { model_provider: "anthropic", output_version: "v1" } });
  }
  const reasoning = { id: `rs_${id}`, type: "reasoning", summary: [{ type: "summary_text", text: thinkingText(id) }], encrypted_content: `ENC-${id}-gAAAAB` };
  const output: Record<string, unknown>[] = [
    reasoning,
    { type: "message", id: `msg_${id}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: prose, annotations: [] }] },
  ];
  if (callId !== undefined) output.push({ type: "function_call", id: `fc_${id}`, call_id: callId, name: "lookup", arguments: JSON.stringify(args), status: "completed" });
  return new AIMessage({
    id,
    content: [{ type: "reasoning", reasoning: thinkingText(id) }, { type: "text", text: prose, annotations: [] }] as never,
    tool_calls: calls,
    additional_kwargs: { reasoning },
    response_metadata: { model_provider: "openai", model: "gpt-5", status: "completed", output },
  });
}

/** Tool-result text of a given length. */
export function resultText(id: string, chars: number): string {
  const unit = `row ${id} amount 12.50 account ACME; `;
  return unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
}

/** One user turn: a request, `steps` tool-calling steps with results, then an answer. */
export function toolTurn(shape: Shape, t: number, steps: number, resultChars: number, answerChars = 200): BaseMessage[] {
  const out: BaseMessage[] = [new HumanMessage({ id: `h${t}`, content: `Request ${t}: reconcile the ledger for account ${t}.` })];
  for (let s = 0; s < steps; s++) {
    const callId = `call_${t}_${s}`;
    out.push(assistantStep(shape, `a${t}_${s}`, `Step ${s} of turn ${t}: checking the ledger.`, callId));
    out.push(new ToolMessage({ id: `r${t}_${s}`, tool_call_id: callId, name: "lookup", content: resultText(`${t}.${s}`, resultChars) }));
  }
  out.push(assistantStep(shape, `a${t}_end`, `Answer ${t}: ${"the ledger balances. ".repeat(Math.ceil(answerChars / 21))}`.slice(0, answerChars)));
  return out;
}

/** The reasoning a message would send: content blocks, `additional_kwargs.reasoning`, reasoning output items. */
export function reasoningOf(message: BaseMessage): unknown[] {
  const found: unknown[] = [];
  const isReasoning = (b: unknown) => {
    const t = (b as { type?: unknown; value?: { type?: unknown } } | null)?.type;
    const inner = t === "non_standard" ? (b as { value?: { type?: unknown } }).value?.type : t;
    return inner === "thinking" || inner === "redacted_thinking" || inner === "reasoning";
  };
  if (Array.isArray(message.content)) found.push(...(message.content as unknown[]).filter(isReasoning));
  if (message.additional_kwargs["reasoning"] !== undefined) found.push(message.additional_kwargs["reasoning"]);
  const output = message.response_metadata["output"];
  if (Array.isArray(output)) found.push(...(output as unknown[]).filter(isReasoning));
  return found;
}

/**
 * The text LangChain's OpenAI converter sends for an assistant message (converters/responses.js):
 * a non-empty `response_metadata.output` verbatim (its `output_text` parts), else the text blocks.
 */
export function sentText(message: BaseMessage): string[] {
  const output = message.response_metadata["output"];
  if (Array.isArray(output) && output.length > 0) {
    return (output as { type?: string; content?: { type?: string; text?: string }[] }[])
      .filter((item) => item.type === "message")
      .flatMap((item) => (item.content ?? []).filter((p) => p.type === "output_text").map((p) => p.text ?? ""));
  }
  if (typeof message.content === "string") return message.content === "" ? [] : [message.content];
  return (message.content as { type?: string; text?: string }[]).filter((b) => b.type === "text").map((b) => b.text ?? "");
}

/** The readable text of a provider compaction: it stands for everything before it. */
export const COMPACTION_TEXT = "PROVIDER-SUMMARY: the ledgers of the earlier requests were reconciled.";

/**
 * An assistant message that holds a provider compaction, then its prose and (when `callId`)
 * one tool call: Anthropic's `compaction` block first in the content, OpenAI's `compaction`
 * item in `response_metadata.output` and `additional_kwargs.tool_outputs`, or v1's
 * `non_standard` block wrapping Anthropic's.
 */
export function compactionStep(shape: Shape, id: string, prose: string, callId?: string): AIMessage {
  const step = assistantStep(shape, id, prose, callId);
  if (shape === "openai") {
    const item = { id: `cmp_${id}`, type: "compaction", encrypted_content: `COMPACTED-SECRET-${id}` };
    const output = [item, ...(step.response_metadata["output"] as unknown[])];
    return new AIMessage({
      id,
      content: step.content,
      tool_calls: step.tool_calls ?? [],
      additional_kwargs: { ...step.additional_kwargs, tool_outputs: [item] },
      response_metadata: { ...step.response_metadata, output },
    });
  }
  const block = { type: "compaction", content: COMPACTION_TEXT, encrypted_content: `COMPACTED-SECRET-${id}` };
  const first = shape === "v1" ? { type: "non_standard", value: block } : block;
  return new AIMessage({ id, content: [first, ...(step.content as unknown[])] as never, tool_calls: step.tool_calls ?? [], response_metadata: step.response_metadata });
}
