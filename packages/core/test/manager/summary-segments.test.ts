// A running summary grows by appending the summary of the newly cut messages while it is
// short, so its text stays byte for byte at the head of the view (a provider's prompt cache
// still serves it); once it passes its share of the limit the next update folds it.
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createContextManager, createEstimator, InMemoryContextStore, type Summarizer } from "@contextview/core";
import { extendsByAppending, SUMMARY_APPEND_SHARE, summarizeAttempt } from "../../src/manager/summarize-attempt.js";
import { MAX_SUMMARY_CHARS } from "../../src/summarize/run-summarizer.js";

const estimator = createEstimator();
const key = { userId: "u1", conversationId: "t1" };

function turns(count: number, from = 0): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = from; i < from + count; i++) {
    out.push(new HumanMessage({ id: `h${i}`, content: `question ${i} ${"words ".repeat(40)}` }));
    out.push(new AIMessage({ id: `a${i}`, content: "", tool_calls: [{ id: `c${i}`, name: "search", args: { i } }] }));
    out.push(new ToolMessage({ id: `t${i}`, tool_call_id: `c${i}`, content: `result ${i} ${"row ".repeat(300)}` }));
    out.push(new AIMessage({ id: `r${i}`, content: `answer ${i}` }));
  }
  return out;
}

/** Records what it is given; answers with one line naming the questions it saw. */
function recordingSummarizer() {
  const seen: { previous: string | null; transcript: string }[] = [];
  const summarizer: Summarizer = async (transcript, { previousSummary }) => {
    seen.push({ previous: previousSummary, transcript });
    const questions = [...transcript.matchAll(/question (\d+)/g)].map((m) => m[1]);
    return `- asked ${questions.join(", ")}`;
  };
  return { summarizer, seen };
}

describe("summary segments", () => {
  it("appends while the running summary is within its share of the limit and half the longest summary", () => {
    expect(extendsByAppending("- the user budgets 400 EUR a month", 8000, estimator)).toBe(true);
    const long = "word ".repeat(Math.ceil(SUMMARY_APPEND_SHARE * 8000) + 10);
    expect(extendsByAppending(long, 8000, estimator)).toBe(false);
    expect(extendsByAppending(long, 1_000_000, estimator)).toBe(true);
    expect(extendsByAppending("x".repeat(MAX_SUMMARY_CHARS / 2 + 1), 10_000_000, estimator)).toBe(false);
  });

  it("summarizes only the new part, without the running summary, and keeps the old text as its prefix", async () => {
    const { summarizer, seen } = recordingSummarizer();
    const messages = [...turns(10), new HumanMessage({ id: "now", content: "the current request" })];
    const inputs = { summarizer, messages, limit: 8000, keep: { keepMinTokens: 200, keepMaxTokens: 400 }, estimator, chunkTokens: 6000, timeoutMs: 10_000, signal: undefined };
    const attempt = await summarizeAttempt({ ...inputs, offset: 20, previous: "- asked 0, 1, 2, 3, 4" });
    expect(attempt.status).toBe("ok");
    if (attempt.status !== "ok") return;
    expect(seen[0]!.previous).toBeNull();
    expect(attempt.text.startsWith("- asked 0, 1, 2, 3, 4\n\n- asked 5")).toBe(true);
    // A running summary past its share is folded: the summarizer gets it, and its answer replaces it.
    const long = `- ${"earlier ".repeat(2000)}`;
    const folded = await summarizeAttempt({ ...inputs, offset: 20, previous: long });
    expect(seen[1]!.previous).toBe(long);
    expect(folded.status === "ok" && folded.text.startsWith("- asked 5")).toBe(true);
  });

  it("folds after all when the appended part would make the summary longer than a summary may be", async () => {
    const seen: (string | null)[] = [];
    const summarizer: Summarizer = async (_transcript, { previousSummary }) => {
      seen.push(previousSummary);
      return previousSummary === null ? "p".repeat(30_000) : "folded";
    };
    const messages = [...turns(10), new HumanMessage({ id: "now", content: "the current request" })];
    const previous = "s".repeat(19_000);
    const attempt = await summarizeAttempt({ summarizer, messages, offset: 20, limit: 1_000_000, keep: { keepMinTokens: 200, keepMaxTokens: 400 }, estimator, previous, chunkTokens: 6000, timeoutMs: 10_000, signal: undefined });
    expect(seen).toEqual([null, previous]);
    expect(attempt).toMatchObject({ status: "ok", text: "folded", calls: 2 });
  });

  it("keeps the summary's text at the head of the manager's view across updates", async () => {
    const { summarizer, seen } = recordingSummarizer();
    const manager = createContextManager({ store: new InMemoryContextStore(), budget: { promptBudget: 4000 }, summarizer });
    const messages: BaseMessage[] = [];
    const summaries: string[] = [];
    for (let i = 0; i < 30; i++) {
      messages.push(...turns(1, i));
      const view = await manager.build({ messages: [...messages, new HumanMessage({ id: `now${i}`, content: "next" })], key });
      if (view.report.compaction.kind === "summary") {
        const shown = view.messages.find((m) => typeof m.content === "string" && m.content.startsWith("Summary of the earlier part"));
        // The message is the header, then the summary text (no evidence here).
        summaries.push(String(shown?.content).split("\n\n").slice(1).join("\n\n"));
      }
    }
    expect(summaries.length).toBeGreaterThan(2);
    // An update of a short summary extends the text the previous views showed, byte for byte.
    const appended = summaries.slice(1).filter((text, i) => text.startsWith(`${summaries[i]!}\n\n`));
    expect(appended.length).toBeGreaterThan(0);
    expect(seen.filter((s) => s.previous === null).length).toBeGreaterThan(1);
  });
});
