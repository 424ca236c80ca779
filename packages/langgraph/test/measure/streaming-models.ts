import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { Runnable } from "@langchain/core/runnables";
import type { LangSmithParams } from "@langchain/core/language_models/chat_models";

/** One scripted answer: text segments streamed `delayMs` apart, then usage (or none), optionally a tool call. */
export interface ScriptedAnswer {
  segments: string[];
  usage?: { output: number; reasoning?: number };
  toolCall?: { id: string; name: string; args: Record<string, unknown> };
  delayMs?: number;
}

/** A streaming chat model that plays scripted answers in order and reports usage like a provider would. */
export class ScriptedStreamingModel extends BaseChatModel {
  private turn = 0;
  constructor(
    private readonly answers: ScriptedAnswer[],
    private readonly modelName = "scripted-1",
  ) {
    super({});
  }

  _llmType(): string {
    return "scripted";
  }

  override getLsParams(options: this["ParsedCallOptions"]): LangSmithParams {
    return { ...super.getLsParams(options), ls_provider: "scripted-provider", ls_model_name: this.modelName };
  }

  override bindTools(tools: unknown[]): Runnable<BaseMessage[], AIMessageChunk> {
    return this.withConfig({ tools } as never) as never;
  }

  private next(): ScriptedAnswer {
    const answer = this.answers[this.turn++ % this.answers.length];
    if (!answer) throw new Error("no scripted answer");
    return answer;
  }

  async _generate(): Promise<ChatResult> {
    const answer = this.next();
    const message = new AIMessage({ content: answer.segments.join("") });
    return { generations: [{ message, text: String(message.content) }] };
  }

  override async *_streamResponseChunks(_messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    const answer = this.next();
    const parts = answer.segments.length > 0 ? answer.segments : [""];
    for (const [i, text] of parts.entries()) {
      if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      options.signal?.throwIfAborted();
      const last = i === parts.length - 1;
      const fields: Record<string, unknown> = { content: text };
      if (last && answer.usage) {
        fields["usage_metadata"] = {
          input_tokens: 10,
          output_tokens: answer.usage.output,
          total_tokens: 10 + answer.usage.output,
          ...(answer.usage.reasoning === undefined ? {} : { output_token_details: { reasoning: answer.usage.reasoning } }),
        };
      }
      if (last && answer.toolCall) {
        fields["tool_call_chunks"] = [{ id: answer.toolCall.id, name: answer.toolCall.name, args: JSON.stringify(answer.toolCall.args), index: 0, type: "tool_call_chunk" }];
      }
      const chunk = new ChatGenerationChunk({ text, message: new AIMessageChunk(fields as never) });
      yield chunk;
      await runManager?.handleLLMNewToken(text, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}
