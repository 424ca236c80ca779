import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, ContextViewError, createContextManager, createEstimator, InMemoryContextStore, type MessageDate } from "@contextview/core";
import { recallFromConversation } from "@contextview/core/internal";
import { RECALL_LABEL } from "../../src/view/recall.js";
import { DateRuns, EPOCH_SECONDS_BELOW, recallDate, utcMinute } from "../../src/view/recall-date";

const budget = { contextWindow: 32768, responseReserve: 4096, promptBudget: 4000 };
const DAY = 86_400_000;
const START = Date.UTC(2023, 4, 8, 13, 56);

/** A long dated chat (one turn a day, the date in `additional_kwargs.sent_at`), a fact at turn 3, a question about it. */
function datedChat(n: number): BaseMessage[] {
  const messages: BaseMessage[] = [new SystemMessage("You are a friendly assistant.")];
  for (let i = 0; i < n; i++) {
    const sent_at = new Date(START + i * DAY).toISOString();
    const user = i === 3 ? "We adopted a beagle last spring, his name is Biscuit and he loves the park." : `Turn ${i}: the weather was ${i % 2 ? "sunny" : "grey"} and I cooked pasta with tomatoes again, nothing special happened today.`;
    messages.push(new HumanMessage({ id: `u${i}`, content: user, additional_kwargs: { sent_at } }), new AIMessage({ id: `a${i}`, content: `That sounds ${i % 2 ? "lovely" : "calm"}. Tell me more about your week.`, additional_kwargs: { sent_at } }));
  }
  messages.push(new HumanMessage({ id: "q", content: "What is the name of my dog Biscuit the beagle?" }));
  return messages;
}

const sentAt: MessageDate = (message) => message.additional_kwargs["sent_at"] as string | undefined;
const recalledText = (messages: readonly BaseMessage[]) => String(messages[messages.findIndex((m) => m.content === RECALL_LABEL) + 1]?.content ?? "");

describe("dates in recalled lines (messageDate)", () => {
  it("dates each run of recalled lines with the date the application keeps, read with the message's index in the conversation", () => {
    const messages = datedChat(300);
    const seen: number[] = [];
    const view = buildContext({ messages, budget, messageDate: (message, index) => (seen.push(index), Date.parse(sentAt(message, index) as string)) });
    const block = recalledText(view.messages);
    expect(block).toContain("[date 2023-05-11T13:56Z]\n[#7 · user · id u3]");
    expect(block).toContain("a [date …] line dates the lines after it");
    // Every line sits under the date of its own message; a heading only where the date changes.
    let date: string | undefined;
    let lines = 0;
    for (const line of block.split("\n").slice(1)) {
      const heading = /^\[date ([^\]]+)\]$/.exec(line);
      if (heading) {
        expect(heading[1]).not.toBe(date);
        date = heading[1];
        continue;
      }
      const index = Number(/^\[#(\d+) /.exec(line)?.[1]);
      expect(date).toBe(`${new Date(START + Math.floor((index - 1) / 2) * DAY).toISOString().slice(0, 16)}Z`);
      lines++;
    }
    expect(lines).toBe(view.report.recall.recalled);
    expect(view.report.tokens.recall).toBe(createEstimator().estimateMessages(view.messages.slice(view.messages.findIndex((m) => m.content === RECALL_LABEL)).slice(0, 2)));
    // Read only by the recall stage, for the messages it considered: never the rest of the conversation.
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.length).toBeLessThan(messages.length / 4);
    expect(view.report.messages.dropped).toBeGreaterThan(0);
  });

  it("charges each heading exactly, whatever order the lines are taken in, and marks a run without a date after a dated one", () => {
    const estimator = createEstimator();
    for (let seed = 1; seed <= 50; seed++) {
      let state = seed;
      const next = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
      const runs = new DateRuns(estimator);
      const indices = [...new Set(Array.from({ length: 12 }, () => Math.floor(next() * 40)))];
      let charged = 0;
      for (const index of indices) {
        const date = next() < 0.2 ? undefined : ["1 May", "2 May", "3 May"][Math.floor(index / 14)];
        charged += runs.cost(index, date);
        runs.add(index, date, `line ${index}`);
      }
      const rendered = runs.render();
      const headings = rendered.filter((line) => line.startsWith("[date ") || line === "[no date]");
      expect(charged).toBe(headings.reduce((sum, line) => sum + estimator.estimateText(line) + 1, 0));
      expect(rendered.filter((line) => line.startsWith("line ")).map((line) => Number(line.slice(5)))).toEqual([...indices].sort((a, b) => a - b));
    }
    const runs = new DateRuns(estimator);
    runs.add(1, "1 May", "line 1");
    runs.add(2, undefined, "line 2");
    runs.add(0, undefined, "line 0");
    expect(runs.indices()).toEqual([0, 1, 2]);
    expect(runs.render()).toEqual(["line 0", "[date 1 May]", "line 1", "[no date]", "line 2"]);
  });

  it("leaves the view exactly as without dates when none is given, and charges the dates when one is", () => {
    const messages = datedChat(300);
    const plain = buildContext({ messages, budget });
    expect(recalledText(plain.messages)).not.toContain(" · date ");
    expect(recalledText(plain.messages)).toContain("role and id):");
    const undated = buildContext({ messages, budget, messageDate: () => undefined });
    // The same view but the block's header, which says where dates would be: its longer
    // header leaves room for one line fewer, at most, of the newest messages left out.
    const blockAt = (view: readonly BaseMessage[]) => view.findIndex((m) => m.content === RECALL_LABEL) + 1;
    const rest = (view: readonly BaseMessage[]) => JSON.stringify(view.filter((_, i) => i !== blockAt(view)));
    expect(rest(undated.messages)).toBe(rest(plain.messages));
    const [undatedLines, plainLines] = [recalledText(undated.messages).split("\n"), recalledText(plain.messages).split("\n")];
    expect(undatedLines[0]).toBe(plainLines[0]!.replace("role and id):", "role and id; a [date …] line dates the lines after it):"));
    expect(undatedLines.slice(1).every((line) => plainLines.includes(line))).toBe(true);
    expect(plainLines.length - undatedLines.length).toBeLessThanOrEqual(1);
    const dated = buildContext({ messages, budget, messageDate: sentAt });
    expect(dated.report.tokens.total).toBeLessThanOrEqual(dated.report.limit);
    expect(dated.report.tokens.recall).toBeLessThanOrEqual(plain.report.tokens.recall + 60);
  });

  it("shows strings as given (whitespace collapsed, 40 characters at most), Dates and epoch milliseconds as UTC to the minute", () => {
    const message = new HumanMessage("hi");
    expect(recallDate(() => "  8 May 2023,\n 1:56 pm ", message, 0)).toBe("8 May 2023, 1:56 pm");
    expect(recallDate(() => "x".repeat(90), message, 0)).toHaveLength(40);
    expect(recallDate(() => "   ", message, 0)).toBeUndefined();
    expect(recallDate(() => new Date(START), message, 0)).toBe("2023-05-08T13:56Z");
    expect(recallDate(() => START, message, 0)).toBe("2023-05-08T13:56Z");
    expect(recallDate(() => undefined, message, 0)).toBeUndefined();
  });

  it("reads a number below 1e11 as epoch seconds (a Unix clock, an API's `created`), any other as milliseconds", () => {
    const message = new HumanMessage("hi");
    expect(recallDate(() => START / 1000, message, 0)).toBe("2023-05-08T13:56Z");
    expect(recallDate(() => Math.floor(START / 1000), message, 0)).toBe(recallDate(() => START, message, 0));
    expect(recallDate(() => EPOCH_SECONDS_BELOW - 1, message, 0)).toBe(utcMinute((EPOCH_SECONDS_BELOW - 1) * 1000));
    expect(recallDate(() => EPOCH_SECONDS_BELOW, message, 0)).toBe(utcMinute(EPOCH_SECONDS_BELOW));
    expect(recallDate(() => -86_400, message, 0)).toBe("1969-12-31T00:00Z");
    // A Date is never read as seconds, however early.
    expect(recallDate(() => new Date(Date.UTC(1971, 0, 1)), message, 0)).toBe("1971-01-01T00:00Z");
  });

  it.each([
    ["an object", () => ({ when: "today" })],
    ["an invalid Date", () => new Date("not a date")],
    ["NaN", () => Number.NaN],
    ["a number beyond any Date", () => 1e300],
  ])("refuses %s with INVALID_OPTION naming messageDate", (_name, messageDate) => {
    const attempt = () => buildContext({ messages: datedChat(300), budget, messageDate: messageDate as unknown as MessageDate });
    expect(attempt).toThrow(ContextViewError);
    expect(attempt).toThrow(/messageDate/);
    try {
      attempt();
    } catch (error) {
      expect((error as ContextViewError).code).toBe("INVALID_OPTION");
      expect((error as ContextViewError).details).toEqual({ field: "messageDate" });
    }
  });

  it("refuses a messageDate that is not a function, on buildContext and on the manager", () => {
    expect(() => buildContext({ messages: datedChat(10), budget, messageDate: "sent_at" as unknown as MessageDate })).toThrow(/Expected `messageDate` to be a function/);
    expect(() => createContextManager({ messageDate: 42 as unknown as MessageDate })).toThrow(/Expected `messageDate` to be a function/);
  });

  it("is passed by the context manager to every view it builds", async () => {
    const manager = createContextManager({ budget, store: new InMemoryContextStore(), messageDate: sentAt });
    const messages = datedChat(300);
    const { messages: view } = await manager.build({ messages, key: { userId: "u", conversationId: "c" } });
    expect(recalledText(view)).toContain("[date 2023-05-11T13:56:00.000Z]\n[#7 · user · id u3]");
  });
});

describe("dates in the recall tool's answers (messageDate)", () => {
  const messages = datedChat(40);
  it("labels every message a search, a read or a rows answer shows with its date", () => {
    const options = { messageDate: sentAt };
    const search = recallFromConversation(messages, { action: "search", query: "beagle Biscuit" }, options);
    expect(search.error).toBe(false);
    expect(search.text).toContain(`message 7 · role user · id u3 · date ${new Date(START + 3 * DAY).toISOString()}`);
    const read = recallFromConversation(messages, { action: "read", message: "u3" }, options);
    expect(read.text).toContain(`message 7 · role user · id u3 · date ${new Date(START + 3 * DAY).toISOString()}`);
    // Without it, the labels are as before.
    expect(recallFromConversation(messages, { action: "read", message: "u3" }).text).toContain("message 7 · role user · id u3 ·");
    expect(recallFromConversation(messages, { action: "read", message: "u3" }).text).not.toContain(" · date ");
  });

  it("refuses a messageDate that is not a function when the options are resolved", () => {
    expect(() => recallFromConversation(messages, { action: "read", message: "u3" }, { messageDate: "sent_at" as unknown as MessageDate })).toThrow(/Expected `messageDate` to be a function/);
  });
});
