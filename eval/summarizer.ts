import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { createEstimator } from "@contextview/core";

/** The header of every fake summary. */
export const SUMMARY_HEADER = "Summary of the user's requests so far:";
const LINE_CHARS = 160;
const estimator = createEstimator();
const SUMMARY_CHARS = 3000;
// Lines that open a user message, in contextview's transcript and in langchain's getBufferString.
const USER_LINE = /^(?:user|Human):\s?(.*)$/;

/**
 * The fake summarizer both contextview and langchain's middleware are given: a
 * chat model that keeps, from the transcript it is sent, the first line of every
 * user message (at most 160 characters) and the bullets of any earlier summary,
 * the newest within 3,000 characters. It never sees tool output it was not sent,
 * and keeps nothing of tool results or assistant prose: a stand-in for a cheap
 * summarizer that remembers what the user asked for. Deterministic; counts calls.
 */
export class ExtractiveSummarizerModel extends BaseChatModel {
  calls = 0;
  /** Estimated tokens sent to it and answered by it: a summary is paid for like any model call. */
  tokens = { input: 0, output: 0 };

  _llmType(): string {
    return "extractive-summarizer";
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls++;
    // The instructions are in a system message (contextview) or before the transcript (langchain); only the last message holds data.
    const last = messages.at(-1);
    const text = typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
    const bullets: string[] = [];
    for (const line of text.split("\n")) {
      const trimmed = line.trim();
      if (trimmed.startsWith("- ")) bullets.push(trimmed);
      const user = USER_LINE.exec(trimmed.replace(/^previous summary:\s*/, ""));
      if (user && !(user[1] ?? "").startsWith("Here is a summary") && !(user[1] ?? "").startsWith(SUMMARY_HEADER)) {
        bullets.push(`- ${(user[1] ?? "").slice(0, LINE_CHARS)}`);
      }
    }
    const unique = [...new Set(bullets)];
    let body = unique.join("\n");
    while (body.length > SUMMARY_CHARS && body.includes("\n")) body = body.slice(body.indexOf("\n") + 1);
    const reply = new AIMessage(`${SUMMARY_HEADER}\n${body}`);
    this.tokens.input += estimator.estimateMessages(messages);
    this.tokens.output += estimator.estimateMessage(reply);
    return { generations: [{ message: reply, text: String(reply.content) }] };
  }
}
