import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { z } from "zod";

/**
 * A fresh copy of a transcript message, so that no system can change what the
 * next one sees (langchain's summarization middleware assigns missing ids in place).
 */
export function cloneMessage(message: BaseMessage): BaseMessage {
  const content = typeof message.content === "string" ? message.content : structuredClone(message.content);
  // Application fields (a pin, say) travel with the message.
  const id = message.id;
  const kwargs = Object.keys(message.additional_kwargs ?? {}).length > 0 ? { additional_kwargs: structuredClone(message.additional_kwargs) } : {};
  if (message.type === "human") return new HumanMessage({ content, ...kwargs, ...(id ? { id } : {}) });
  if (message.type === "system") return new SystemMessage({ content, ...kwargs, ...(id ? { id } : {}) });
  if (message.type === "tool") {
    const result = message as ToolMessage;
    return new ToolMessage({ content, tool_call_id: result.tool_call_id, ...(result.name ? { name: result.name } : {}), artifact: result.artifact, status: result.status ?? "success", ...kwargs, ...(id ? { id } : {}) });
  }
  const ai = message as AIMessage;
  return new AIMessage({ content, tool_calls: structuredClone(ai.tool_calls ?? []), ...kwargs, ...(id ? { id } : {}) });
}

/**
 * A chat model that answers with the recorded assistant messages of a transcript,
 * in order, whatever view it is shown, and records every view. Replaying fixes the
 * conversation, so every system is measured on the same inputs.
 */
export class ReplayChatModel extends BaseChatModel {
  readonly views: BaseMessage[][] = [];
  private next = 0;

  constructor(
    private readonly answers: readonly AIMessage[],
    private readonly counter: (messages: readonly BaseMessage[]) => number,
    private readonly onCall: () => void = () => undefined,
  ) {
    super({});
  }

  _llmType(): string {
    return "replay";
  }

  // The replay decides the calls; binding tools has to keep the same model.
  override bindTools(_tools: readonly unknown[]): this {
    return this;
  }

  /** contextEditingMiddleware's "model" count method: the same counter as every other system. */
  async getNumTokensFromMessages(messages: BaseMessage[]): Promise<{ totalCount: number }> {
    return { totalCount: this.counter(messages) };
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.onCall();
    this.views.push([...messages]);
    const answer = this.answers[this.next++];
    if (!answer) throw new Error(`replay: model call ${this.next} has no recorded answer`);
    const message = cloneMessage(answer) as AIMessage;
    return { generations: [{ message, text: typeof message.content === "string" ? message.content : "" }] };
  }
}

/**
 * Tools with the transcript's names that return the recorded result of each call
 * (found by `tool_call_id`), artifact included.
 */
export function replayTools(transcript: readonly BaseMessage[]): StructuredToolInterface[] {
  const results = new Map<string, ToolMessage>();
  for (const message of transcript) if (message.type === "tool") results.set((message as ToolMessage).tool_call_id, message as ToolMessage);
  const names = new Set([...results.values()].map((m) => m.name ?? "tool"));
  return [...names].map((name) =>
    tool(
      async (_args: Record<string, unknown>, config) => {
        const id = (config as { toolCall?: { id?: string } }).toolCall?.id ?? "";
        const recorded = results.get(id);
        if (!recorded) throw new Error(`replay: no recorded result for tool call ${id}`);
        return cloneMessage(recorded) as ToolMessage;
      },
      { name, description: `Replays recorded ${name} results.`, schema: z.looseObject({}) },
    ) as unknown as StructuredToolInterface,
  );
}

/** The recorded assistant messages of a transcript, in order: one per model call. */
export function answersOf(transcript: readonly BaseMessage[]): AIMessage[] {
  return transcript.filter((m): m is AIMessage => m.type === "ai");
}

/** The user turns of a transcript: each HumanMessage, with the index where it starts. */
export function userTurns(transcript: readonly BaseMessage[]): { index: number; message: HumanMessage }[] {
  const out: { index: number; message: HumanMessage }[] = [];
  transcript.forEach((message, index) => {
    if (message.type === "human") out.push({ index, message: message as HumanMessage });
  });
  return out;
}

/** Indices of the transcript where a model call happened: right before each AI message. */
export function callPoints(transcript: readonly BaseMessage[]): number[] {
  const out: number[] = [];
  transcript.forEach((message, index) => {
    if (message.type === "ai") out.push(index);
  });
  return out;
}
