import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator } from "@contextview/core";
import { assistantStep, resultText } from "../support/provider-shapes";

// Issue 50: OpenAI's reasoning items go back in a tool loop with their `encrypted_content`,
// which the provider decrypts into the reasoning tokens they stand for. No content block
// shows them, so they were sent and never charged: a view "within its limit" could send
// thousands of tokens more. They are charged now — the reported reasoning tokens, else the
// encrypted text as text; a compaction item sent in `output`, by its encrypted text.

const estimator = createEstimator();
/** An assistant message from fields read off another one (ids and tool calls as LangChain typed them). */
const ai = (fields: Record<string, unknown>) => new AIMessage(fields as never);

/** An OpenAI tool-loop step whose reasoning item carries `chars` characters of encrypted content. */
function encryptedStep(id: string, callId: string | undefined, chars: number, reasoningTokens?: number): AIMessage {
  const step = assistantStep("openai", id, `Step ${id}: checking the ledger.`, callId);
  const encrypted = `gAAAAB${"Zm9vYmFyYmF6".repeat(Math.ceil(chars / 12))}`.slice(0, chars);
  const reasoning = { ...(step.additional_kwargs["reasoning"] as object), encrypted_content: encrypted };
  const output = (step.response_metadata["output"] as Record<string, unknown>[]).map((item) => (item["type"] === "reasoning" ? reasoning : item));
  return ai({
    id: step.id,
    content: step.content,
    tool_calls: step.tool_calls,
    additional_kwargs: { reasoning },
    response_metadata: { ...step.response_metadata, output },
    ...(reasoningTokens === undefined ? {} : { usage_metadata: { input_tokens: 10, output_tokens: reasoningTokens + 20, total_tokens: reasoningTokens + 30, output_token_details: { reasoning: reasoningTokens } } }),
  });
}

/** The same message with no encrypted reasoning anywhere: what its content alone costs. */
function withoutEncrypted(message: BaseMessage): AIMessage {
  return ai({ id: message.id, content: message.content, tool_calls: (message as AIMessage).tool_calls, response_metadata: { model_provider: "openai" } });
}

describe("encrypted reasoning sent in a tool loop is charged", () => {
  it("charges the reported reasoning tokens when the message has them", () => {
    const step = encryptedStep("a1", "c1", 8000, 1500);
    expect(estimator.estimateMessage(step) - estimator.estimateMessage(withoutEncrypted(step))).toBe(1500);
  });

  it("charges the encrypted text as text when no reasoning tokens were reported", () => {
    const step = encryptedStep("a1", "c1", 8000);
    const extra = estimator.estimateMessage(step) - estimator.estimateMessage(withoutEncrypted(step));
    expect(extra).toBe(estimator.estimateText((step.additional_kwargs["reasoning"] as { encrypted_content: string }).encrypted_content));
    expect(extra).toBeGreaterThan(1000);
  });

  it("charges it once when the item is both in `additional_kwargs` and in `response_metadata.output`", () => {
    const both = encryptedStep("a1", "c1", 4000, 700);
    const kwargsOnly = ai({ id: "a1", content: both.content, tool_calls: both.tool_calls, additional_kwargs: both.additional_kwargs, usage_metadata: both.usage_metadata });
    expect(estimator.estimateMessage(both) - estimator.estimateMessage(withoutEncrypted(both))).toBe(700);
    expect(estimator.estimateMessage(kwargsOnly) - estimator.estimateMessage(withoutEncrypted(both))).toBe(700);
  });

  it("charges an OpenAI compaction item sent in `output` by its encrypted text", () => {
    const step = assistantStep("openai", "a1", "Carrying on from the compacted history.");
    const encrypted = `gAAAAB${"Y29tcGFjdA==".repeat(400)}`;
    const output = [{ type: "compaction", id: "cmp_1", encrypted_content: encrypted }, ...(step.response_metadata["output"] as object[])];
    const compacted = ai({ id: "a1", content: step.content, response_metadata: { ...step.response_metadata, output } });
    const extra = estimator.estimateMessage(compacted) - estimator.estimateMessage(step);
    expect(extra).toBe(estimator.estimateText(encrypted));
  });

  it("does not charge a human message or an item with no encrypted content", () => {
    const plain = assistantStep("openai", "a1", "Checking.", "c1");
    const stripped = ai({ ...plain, additional_kwargs: { reasoning: { type: "reasoning", id: "rs_1", summary: [] } }, response_metadata: {} });
    expect(estimator.estimateMessage(stripped)).toBe(estimator.estimateMessage(withoutEncrypted(stripped)));
    const human = new HumanMessage({ content: "hi", additional_kwargs: { reasoning: { type: "reasoning", encrypted_content: "gAAAAB".repeat(500) } } });
    expect(estimator.estimateMessage(human)).toBe(estimator.estimateMessage(new HumanMessage("hi")));
  });

  it("a view of a loop whose reasoning decrypts to more than the limit sends at most the limit, reasoning counted", () => {
    const promptBudget = 8000;
    const messages: BaseMessage[] = [new SystemMessage("You reconcile ledgers."), new HumanMessage({ id: "h0", content: "Reconcile account 7." })];
    for (let s = 0; s < 6; s++) {
      messages.push(encryptedStep(`a${s}`, `c${s}`, 6000, 1800));
      messages.push(new ToolMessage({ id: `r${s}`, tool_call_id: `c${s}`, name: "lookup", content: resultText(String(s), 600) }));
    }
    const view = buildContext({ messages, budget: { promptBudget } });
    // The loop's older steps are excerpted to make room; the kept ones go back whole, reasoning and all.
    expect(view.report.currentTurn?.excerpted).toBeGreaterThan(0);
    expect(view.report.currentTurn?.kept).toBeGreaterThan(0);
    // What the provider receives: each message's content, plus the reasoning tokens its
    // encrypted items decrypt to — counted here without the estimator's new code path.
    let sent = estimator.estimateMessages([]);
    for (const message of view.messages) {
      const encrypted = message.type === "ai" && (message.additional_kwargs["reasoning"] as { encrypted_content?: string } | undefined)?.encrypted_content !== undefined;
      sent += encrypted ? estimator.estimateMessage(withoutEncrypted(message)) + 1800 : estimator.estimateMessage(message);
    }
    expect(sent).toBeLessThanOrEqual(promptBudget);
    expect(view.report.tokens.total).toBeLessThanOrEqual(promptBudget);
  });
});
