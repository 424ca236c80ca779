import fc from "fast-check";
import { HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, ContextBudgetError, createContextManager, createEstimator, InMemoryContextStore } from "@contextview/core";
import { rebuildView, recallFromConversation, recordedMessagesMatch, viewRecordOf } from "@contextview/core/internal";
import { anthropicOrderProblems, readableText, snapshot, viewProblems } from "@contextview/test-support";
import { assistantStep, COMPACTION_TEXT, compactionStep, reasoningOf, resultText, toolTurn, type Shape } from "../support/provider-shapes";

// Issue 50, item 4: a provider's server-side compaction is the view's head. The message
// that holds the latest one goes first after the system prompt, unchanged while its loop
// goes on; nothing before it is sent, charged, summarized, excerpted, pinned, recalled or
// quoted as evidence; the report counts the span the provider compacted.

const estimator = createEstimator();
const shapes: Shape[] = ["anthropic", "openai", "v1"];
/** The provider whose rules a view of this shape is held to: compaction is Anthropic's and OpenAI's. */
const providerOf = (shape: Shape) => (shape === "openai" ? (["openai"] as const) : (["anthropic"] as const));
const budget = (promptBudget: number) => ({ contextWindow: promptBudget + 8192, promptBudget, responseReserve: 4096 });

/** Older turns (marked OLD-n), then a request whose tool loop the provider compacted after `before` steps; `after` steps follow. */
function compactedLoop(shape: Shape, olderTurns: number, before: number, after: number, resultChars = 600): { messages: BaseMessage[]; at: number } {
  const messages: BaseMessage[] = [new SystemMessage("You reconcile ledgers.")];
  for (let t = 0; t < olderTurns; t++) {
    const turn = toolTurn(shape, t, 1 + (t % 3), resultChars);
    messages.push(new HumanMessage({ id: `old${t}`, content: `OLD-${t} marker: reconcile account ${t}.` }), ...turn.slice(1));
  }
  messages.push(new HumanMessage({ id: "req", content: "Reconcile every ledger of the quarter." }));
  for (let s = 0; s < before; s++) {
    messages.push(assistantStep(shape, `pre${s}`, `PRE-${s} checking.`, `pre_call_${s}`));
    messages.push(new ToolMessage({ id: `pre_r${s}`, tool_call_id: `pre_call_${s}`, name: "lookup", content: `PRE-${s} ${resultText(`p${s}`, resultChars)}` }));
  }
  const at = messages.length;
  messages.push(compactionStep(shape, "cmp", "Continuing after the compaction.", "cmp_call"));
  messages.push(new ToolMessage({ id: "cmp_r", tool_call_id: "cmp_call", name: "lookup", content: resultText("c", resultChars) }));
  for (let s = 0; s < after; s++) {
    messages.push(assistantStep(shape, `post${s}`, `POST-${s} checking.`, `post_call_${s}`));
    messages.push(new ToolMessage({ id: `post_r${s}`, tool_call_id: `post_call_${s}`, name: "lookup", content: resultText(`q${s}`, resultChars) }));
  }
  return { messages, at };
}

const PRE_MARKS = /OLD-\d|PRE-\d|Reconcile every ledger/;

/** What a provider is sent of a message: its id, content, calls and the kwargs and metadata LangChain's converters read. */
const sent = (message: BaseMessage | undefined) =>
  message === undefined ? undefined : { id: message.id, content: message.content, tool_calls: (message as { tool_calls?: unknown }).tool_calls, additional_kwargs: message.additional_kwargs, response_metadata: message.response_metadata };

describe.each(shapes)("a provider compaction inside the current tool loop (%s)", (shape) => {
  const { messages, at } = compactedLoop(shape, 4, 3, 2);
  const before = snapshot(messages);
  const build = (promptBudget = 16000) => buildContext({ messages, budget: budget(promptBudget) });
  const view = build();

  it("goes first after the system prompt, byte for byte, with the result of its call", () => {
    expect(view.messages[0]?.type).toBe("system");
    expect(sent(view.messages[1])).toEqual(sent(messages[at]));
    expect(view.messages[1]).not.toBe(messages[at]);
    expect(view.messages[2]?.id).toBe("cmp_r");
    expect(view.messages.slice(3).map((m) => m.id)).toEqual(messages.slice(at + 2).map((m) => m.id));
  });

  it("sends, charges and counts nothing before it", () => {
    expect(readableText(view.messages.slice(1))).not.toMatch(PRE_MARKS);
    expect(view.report.messages.providerCompacted).toBe(at - 1);
    expect(view.report.tokens.total).toBe(estimator.estimateMessages(view.messages));
    expect(view.report.messages.unread).toBe(0);
    expect(viewProblems({ conversation: messages, messages, before, estimator, rebuild: () => build().messages, providers: providerOf(shape) }, view)).toEqual([]);
  });

  it("is an order every provider of its shape accepts", () => {
    if (shape !== "openai") expect(anthropicOrderProblems(view.messages)).toEqual([]);
  });

  it("stays when the loop no longer fits: older steps leave, never the head", () => {
    const tight = buildContext({ messages: compactedLoop(shape, 4, 3, 12, 2500).messages, budget: budget(3000) });
    expect(tight.messages[1]?.id).toBe("cmp");
    expect(tight.report.tokens.total).toBeLessThanOrEqual(tight.report.limit);
  });

  it("is mandatory: a budget it does not fit is refused, not a view without it", () => {
    expect(() => buildContext({ messages, budget: { promptBudget: 150 } })).toThrow(ContextBudgetError);
  });
});

describe.each(shapes)("a provider compaction in an older turn (%s)", (shape) => {
  const { messages: loop, at } = compactedLoop(shape, 3, 2, 1);
  const messages = [...loop, assistantStep(shape, "done", "All reconciled."), new HumanMessage({ id: "next", content: "Now the forecast, please." })];
  const evidence = new InMemoryContextStore();

  it("is the head, its reasoning cleared, its compaction kept; evidence of what came before it is not shown", async () => {
    const state = await evidence.update("u", "t", messages);
    expect(state.isEmpty).toBe(false);
    const view = buildContext({ messages, budget: budget(16000), historyMessage: state.asMessage() });
    const head = view.messages[1] as BaseMessage;
    expect(head.id).toBe("cmp");
    expect(reasoningOf(head)).toEqual([]);
    expect(JSON.stringify(head.content) + JSON.stringify(head.response_metadata)).toContain("COMPACTED-SECRET-cmp");
    expect(readableText(view.messages.slice(1))).not.toMatch(PRE_MARKS);
    expect(view.report.messages.providerCompacted).toBe(at - 1);
    expect(viewProblems({ conversation: messages, messages, estimator, providers: providerOf(shape) }, view)).toEqual([]);
  });

  it("goes before the pinned block", () => {
    const pinned = messages.map((m) => (m.id === "post_r0" ? new ToolMessage({ ...(m as ToolMessage), id: "post_r0", tool_call_id: "post_call_0", content: (m as ToolMessage).content, additional_kwargs: { contextview: { pin: true } } }) : m));
    const view = buildContext({ messages: pinned, budget: budget(16000) });
    expect(view.messages[1]?.id).toBe("cmp");
  });
});

describe("what reads the conversation skips what the provider compacted", () => {
  const { messages, at } = compactedLoop("anthropic", 3, 2, 1);

  it("recall neither finds nor reads a message before the compaction", () => {
    // Every older request says "marker"; the steps after the compaction say "checking".
    expect(recallFromConversation(messages, { action: "search", query: "marker" }).text).toContain("No message of this conversation matches");
    expect(recallFromConversation(messages, { action: "search", query: "checking" }).text).toMatch(/^1\. .*post0/m);
    const read = recallFromConversation(messages, { action: "read", message: 2 });
    expect(read.error).toBe(true);
    expect(recallFromConversation(messages, { action: "read", message: at }).error).toBe(false);
  });

  it("the manager never summarizes it, and drops a summary made before it", async () => {
    const transcripts: string[] = [];
    // 1,200 tokens: the thinking loop before the compaction outgrows its first call's room, so
    // its later calls are built as any other view and may summarize (one that fits goes on as its first call decided).
    const manager = createContextManager({
      budget: budget(1200),
      summarizer: async (transcript: string) => {
        transcripts.push(transcript);
        return `SUMMARY-${transcripts.length} of the turns.`;
      },
    });
    const key = { userId: "u", conversationId: "c1" };
    // Before the compaction: the manager summarizes the older turns, and shows the summary.
    const earlier = await manager.build({ key, messages: messages.slice(0, at) });
    expect(transcripts.length).toBeGreaterThan(0);
    expect(readableText(earlier.messages)).toContain("SUMMARY-1 of the turns.");
    const made = transcripts.length;
    // After it, with three more turns and a new request: a summary of what came after the compaction, never of what came before.
    // (A request, not a later call of a loop: a loop whose replies think goes on as its first call decided.)
    const more = [8, 9, 10].flatMap((t) => toolTurn("anthropic", t, 4, 1500));
    const after = [...messages, ...more, ...toolTurn("anthropic", 11, 1, 1500).slice(0, 1)];
    const view = await manager.build({ key, messages: after });
    expect(view.messages[1]?.id).toBe("cmp");
    expect(readableText(view.messages)).not.toContain("SUMMARY-1 of the turns.");
    expect(transcripts.length).toBeGreaterThan(made);
    for (const transcript of transcripts.slice(made)) expect(transcript).not.toMatch(PRE_MARKS);
    expect(view.report.compaction.summarizedMessages).toBeGreaterThan(0);
    expect(view.report.messages.providerCompacted).toBe(at - 1);
  });
});

describe("provider compaction over random loops (issue 50, item 4)", () => {
  it("every law holds; the head is first and unchanged in its loop; nothing before it is sent", () => {
    fc.assert(
      fc.property(
        fc.constantFrom<Shape>(...shapes),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 100, max: 2500 }),
        fc.integer({ min: 3000, max: 16000 }),
        fc.boolean(),
        (shape, olderTurns, beforeSteps, afterSteps, resultChars, promptBudget, laterTurn) => {
          const loop = compactedLoop(shape, olderTurns, beforeSteps, afterSteps, resultChars);
          const messages = laterTurn ? [...loop.messages, assistantStep(shape, "done", "Done."), new HumanMessage({ id: "next", content: "And the forecast?" })] : loop.messages;
          const before = snapshot(messages);
          const build = () => buildContext({ messages, budget: budget(promptBudget) });
          let view;
          try {
            view = build();
          } catch (error) {
            // Only a head and a newest exchange that cannot fit together are refused.
            expect(error).toBeInstanceOf(ContextBudgetError);
            return;
          }
          expect(viewProblems({ conversation: messages, messages, before, estimator, rebuild: () => build().messages, providers: providerOf(shape) }, view)).toEqual([]);
          expect(view.messages[1]?.id).toBe("cmp");
          if (!laterTurn) expect(sent(view.messages[1])).toEqual(sent(messages[loop.at]));
          if (shape !== "openai") expect(anthropicOrderProblems(view.messages)).toEqual([]);
          expect(readableText(view.messages.slice(1))).not.toMatch(PRE_MARKS);
          expect(view.report.messages.providerCompacted).toBe(loop.at - 1);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("a compaction message whose call was never answered (a cancelled run)", () => {
  it("is sent without the call, which is counted, and every provider rule holds", () => {
    const { messages, at } = compactedLoop("anthropic", 2, 1, 0);
    const cancelled = [...messages.slice(0, at + 1), new HumanMessage({ id: "again", content: "Stop, and tell me where you are." })];
    const view = buildContext({ messages: cancelled, budget: budget(16000) });
    const head = view.messages[1] as BaseMessage;
    expect(head.id).toBe("cmp");
    expect((head.content as { type: string }[]).map((b) => b.type)).toEqual(["compaction", "text"]);
    expect((head as { tool_calls?: unknown[] }).tool_calls).toEqual([]);
    expect(view.report.unfinishedCalls).toBe(1);
    expect(anthropicOrderProblems(view.messages)).toEqual([]);
    expect(viewProblems({ conversation: cancelled, messages: cancelled, estimator, providers: ["anthropic"] }, view)).toEqual([]);
  });
});

describe("a compaction message whose call was never answered, then more steps", () => {
  it("is followed by a label before the next tool call, and every law holds", () => {
    const { messages, at } = compactedLoop("anthropic", 2, 1, 0);
    const more = [...messages.slice(0, at + 1), assistantStep("anthropic", "post0", "POST-0 checking.", "post_call_0"), new ToolMessage({ id: "post_r0", tool_call_id: "post_call_0", name: "lookup", content: "rows" })];
    const view = buildContext({ messages: more, budget: budget(16000) });
    expect(view.messages.map((m) => m.type)).toEqual(["system", "ai", "human", "ai", "tool"]);
    expect(anthropicOrderProblems(view.messages)).toEqual([]);
    expect(viewProblems({ conversation: more, messages: more, estimator, providers: ["anthropic"] }, view)).toEqual([]);
  });
});

describe("the compaction's own text", () => {
  it("is sent only inside its block", () => {
    const { messages } = compactedLoop("anthropic", 2, 1, 1);
    const view = buildContext({ messages, budget: budget(16000) });
    expect(JSON.stringify(view.messages[1]?.content)).toContain(COMPACTION_TEXT);
    expect(view.messages.slice(2).some((m) => JSON.stringify(m.content).includes(COMPACTION_TEXT))).toBe(false);
  });
});

describe("a recorded view of a compacted conversation", () => {
  it("rebuilds from the checkpoint and its record, which never read what the provider compacted", async () => {
    const { messages, at } = compactedLoop("anthropic", 3, 2, 2);
    const store = new InMemoryContextStore();
    const key = { userId: "u", conversationId: "recorded" };
    const manager = createContextManager({ budget: budget(6000), store });
    const request = { key, messages };
    const view = await manager.build(request);
    await store.recordView(key, viewRecordOf(request, view, { source: "test" }));
    const [stored] = await store.listViews(key);
    expect(stored).toBeDefined();
    const rebuilt = rebuildView(stored!, messages);
    expect({ status: rebuilt.status, problems: rebuilt.problems }).toEqual({ status: "match", problems: [] });
    expect(rebuilt.view?.messages[1]?.id).toBe("cmp");
    // An edit before the compaction is no edit of what the view read; one after it is.
    const editedBefore = messages.map((m, i) => (i === 2 ? new HumanMessage({ id: m.id!, content: "edited" }) : m));
    expect(recordedMessagesMatch(stored!.record, editedBefore)).toBe(true);
    const last = messages.length - 1;
    const editedAfter = messages.map((m, i) => (i === last ? new ToolMessage({ id: m.id!, tool_call_id: (m as ToolMessage).tool_call_id, content: "edited" }) : m));
    expect(recordedMessagesMatch(stored!.record, editedAfter)).toBe(false);
    expect(at).toBeGreaterThan(2);
  });
});
