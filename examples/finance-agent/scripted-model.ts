import { BaseChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, type ToolMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";

/** What the scripted model saw on one call: the messages it received. */
export interface RecordedCall {
  messages: BaseMessage[];
}

const CATEGORIES = ["groceries", "dining", "transport", "utilities", "rent", "entertainment"];
const NOTE_WORDS: Record<string, string> = { budget: "budget-2026.md", lisbon: "trip-lisbon.md", trip: "trip-lisbon.md", tax: "tax-checklist.md", savings: "savings-goals.md" };

function textOf(message: BaseMessage | undefined): string {
  if (!message) return "";
  return typeof message.content === "string" ? message.content : message.content.map((b) => ("text" in b && typeof b.text === "string" ? b.text : "")).join(" ");
}

/**
 * A deterministic stand-in for a chat model: it reads the newest user request and
 * calls the example's tools (in parallel when the request asks for both spending and
 * a note), then answers from the tool results it is shown. It records every call and
 * reports `usage_metadata` like a provider would. No network, no randomness.
 */
export class ScriptedChatModel extends BaseChatModel {
  readonly calls: RecordedCall[];
  private counter = 0;

  constructor(fields: BaseChatModelParams & { calls?: RecordedCall[] } = {}) {
    super(fields);
    this.calls = fields.calls ?? [];
  }

  _llmType(): string {
    return "scripted";
  }

  // The script decides the calls itself; binding only has to keep the same model.
  override bindTools(_tools: readonly unknown[]): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls.push({ messages });
    const draft = this.reply(messages);
    const inputChars = messages.reduce((sum, m) => sum + JSON.stringify(m.content).length + JSON.stringify((m as AIMessage).tool_calls ?? []).length, 0);
    const input = Math.ceil(inputChars / 3.6);
    const output = Math.ceil(textOf(draft).length / 4) + 5;
    // usage_metadata is typed per message structure in @langchain/core 1.x; the plain shape is what providers send.
    const reply = new AIMessage({
      content: textOf(draft),
      tool_calls: (draft.tool_calls ?? []).map((call) => ({ id: call.id ?? "", name: call.name, args: call.args, type: "tool_call" as const })),
      usage_metadata: { input_tokens: input, output_tokens: output, total_tokens: input + output },
    } as never);
    return { generations: [{ message: reply, text: textOf(reply) }] };
  }

  private reply(messages: BaseMessage[]): AIMessage {
    const last = messages.at(-1);
    if (last?.type === "tool") return new AIMessage({ content: this.answerFrom(messages) });
    const request = textOf([...messages].reverse().find((m) => m.type === "human")).toLowerCase();
    const calls: { name: string; args: Record<string, unknown> }[] = [];
    if (/spen[dt]|transactions?|paid|cost/.test(request)) {
      const category = CATEGORIES.find((c) => request.includes(c));
      const month = /2026-\d{2}/.exec(request)?.[0];
      calls.push({ name: "search_transactions", args: { ...(category ? { category } : {}), ...(month ? { month } : {}) } });
    }
    const note = Object.entries(NOTE_WORDS).find(([word]) => request.includes(word))?.[1];
    if (note && /note|plan|checklist|goal|read/.test(request)) {
      const line = /line (\d+)/.exec(request)?.[1];
      calls.push({ name: "read_note", args: line ? { path: note, startLine: Number(line), maxLines: 20 } : { path: note } });
    }
    if (calls.length === 0) return new AIMessage({ content: `Understood. I will keep that in mind: "${request.slice(0, 120)}"` });
    return new AIMessage({
      content: "Let me look that up.",
      tool_calls: calls.map((call) => ({ ...call, id: `call_${++this.counter}`, type: "tool_call" as const })),
    });
  }

  /** Answers from the tool results after the newest tool-call message. */
  private answerFrom(messages: BaseMessage[]): string {
    const parts: string[] = [];
    for (let i = messages.length - 1; i >= 0 && messages[i]?.type === "tool"; i--) {
      const result = messages[i] as ToolMessage;
      const text = textOf(result);
      let payload: Record<string, unknown> | undefined;
      try {
        payload = JSON.parse(text) as Record<string, unknown>;
      } catch {
        payload = undefined;
      }
      if (payload && typeof payload["total"] === "number") parts.push(`${String(payload["count"])} transactions totalling ${String(payload["total"])} EUR`);
      else if (payload && typeof payload["path"] === "string") parts.push(`the note ${payload["path"]} (${text.length} characters) was read`);
      else parts.push(`a ${result.name ?? "tool"} result of ${text.length} characters (${text.startsWith("[") ? "cleared or excerpted" : "text"})`);
    }
    return `Here is what I found: ${parts.reverse().join("; ")}.`;
  }
}
