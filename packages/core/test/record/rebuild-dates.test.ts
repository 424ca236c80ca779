import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { InMemoryContextStore, createContextManager, type Summarizer } from "@contextview/core";
import { rebuildView, viewRecordOf } from "@contextview/core/internal";
import { deepFreeze } from "@contextview/test-support";

const key = { userId: "u1", conversationId: "dated" };
const summarizer: Summarizer = async (transcript) => `Summary of ${transcript.length} characters.`;

/**
 * A chat of `n` dated turns, a fact every 25 turns, questions about them. The date in
 * `additional_kwargs.sent_at`: a Date every third turn, epoch seconds the next, a string
 * the others — in 1971, where a Date's epoch milliseconds are below 1e11, which would read
 * as seconds.
 */
function datedChat(n: number): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < n; i++) {
    const day = new Date(Date.UTC(1971, 0, 1 + Math.floor(i / 4)));
    const sent_at = i % 3 === 0 ? day : i % 3 === 1 ? day.getTime() / 1000 : day.toISOString().slice(0, 10);
    const user = i % 25 === 5 ? `Note ${i}: the locker code for gym ${i} is ${1000 + i}.` : i > n - 6 ? `What is the locker code for gym ${i - ((i - 5) % 25)}?` : `Turn ${i}: ${"small talk about the weather and the weekend ".repeat(3)}`;
    out.push(new HumanMessage({ id: `u${i}`, content: user, additional_kwargs: { sent_at } }), new AIMessage({ id: `a${i}`, content: `Reply ${i}: ${"that sounds fine ".repeat(4)}`, additional_kwargs: { sent_at } }));
  }
  return out;
}

describe("rebuildView of views whose recalled lines are dated (messageDate)", () => {
  it("records the dates messageDate gave, and rebuilds every view with an equal report; without them, the recalled views differ", async () => {
    const all = deepFreeze(datedChat(120));
    const store = new InMemoryContextStore({ maxViewRecords: 1000 });
    const messageDate = (message: BaseMessage) => message.additional_kwargs["sent_at"] as string | Date | number | undefined;
    const manager = createContextManager({ budget: { promptBudget: 3000 }, summarizer, store, messageDate });
    const steps: BaseMessage[][] = [];
    for (let end = 1; end <= all.length; end += 2) {
      const messages = all.slice(0, end);
      const request = { messages, key };
      await store.recordView(key, viewRecordOf(request, await manager.build(request), { source: "test" }));
      steps.push(messages);
    }
    const views = await store.listViews(key);
    const recalled = views.filter((v) => v.record.report.recall.recalled > 0);
    expect(recalled.length).toBeGreaterThan(10);
    expect(views.some((v) => v.record.messages.offset > 0)).toBe(true);
    // Dates recorded as the text their lines show: a string as given, a Date and epoch seconds as UTC.
    const dates = recalled.flatMap((v) => v.record.messages.dates ?? []);
    expect(dates.some(([, date]) => typeof date === "string" && /^1971-\d\d-\d\d$/.test(date))).toBe(true);
    expect(dates.some(([, date]) => typeof date === "string" && /^1971-\d\d-\d\dT00:00Z$/.test(date))).toBe(true);
    expect(dates.every(([, date]) => typeof date === "string")).toBe(true);
    for (const stored of views) {
      const rebuilt = rebuildView(stored, steps[stored.record.sequence - 1] ?? null);
      expect({ sequence: stored.record.sequence, status: rebuilt.status, problems: rebuilt.problems }).toEqual({ sequence: stored.record.sequence, status: "match", problems: [] });
    }
    // The control: the same records without their dates no longer rebuild the recalled views.
    const undated = recalled.map((v) => {
      const { dates: _dates, ...messages } = v.record.messages;
      return { ...v, record: { ...v.record, messages } };
    });
    const mismatched = undated.filter((v) => rebuildView(v, steps[v.record.sequence - 1] ?? null).status === "mismatch");
    expect(mismatched.length).toBeGreaterThan(0);
  });

  it("refuses a record whose dates are malformed, naming the field", async () => {
    const store = new InMemoryContextStore();
    const manager = createContextManager({ budget: { promptBudget: 3000 }, store, messageDate: () => "today" });
    const request = { messages: datedChat(60), key };
    const entry = viewRecordOf(request, await manager.build(request), { source: "test" });
    const bad = { ...entry, record: { ...entry.record, messages: { ...entry.record.messages, dates: [[1, { day: 1 }]] } } };
    await expect(store.recordView(key, bad as unknown as typeof entry)).rejects.toMatchObject({ code: "INVALID_OPTION", details: { field: "entry.record.messages.dates.0" } });
  });
});
