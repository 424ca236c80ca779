// Issue 48: an older turn that does not fit whole is kept with its tool results cleared
// before it is left out, with the default cache steps. The turns so kept form a band at
// the head of the view on its own stable anchor; a turn leaves the whole part for the band
// at the band's end, so the band is sent again as it was (see clearedBand).
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator } from "@contextview/core";
import { EVERY_TOOL_RESULT } from "@contextview/core/internal";
import { compactionMarkerOf } from "@contextview/core/tool-results";
import { idleFor } from "../support/idle-view";

const estimator = createEstimator();

/** A turn answered by one search whose result has `rows` rows (about 22 tokens a row). */
function searchTurn(i: number, rows: number): BaseMessage[] {
  const items = Array.from({ length: rows }, (_, r) => ({ id: `tx-${i}-${r}`, merchant: `Shop ${r % 13}`, amount: 10 + r }));
  return [
    new HumanMessage({ id: `h${i}`, content: `Question ${i}: what did I spend in week ${i}?` }),
    new AIMessage({ id: `a${i}`, content: "", tool_calls: [{ id: `call-${i}`, name: "search", args: { week: i }, type: "tool_call" }] }),
    new ToolMessage({ id: `t${i}`, tool_call_id: `call-${i}`, name: "search", content: JSON.stringify({ week: i, items }) }),
    new AIMessage({ id: `f${i}`, content: `Week ${i}: ${rows * 12} euros in all.` }),
  ];
}

/** `turns` search turns of varying sizes, then a question. */
function conversation(turns: number): BaseMessage[] {
  return [...Array.from({ length: turns }, (_, i) => searchTurn(i, 10 + ((i * 7) % 23))).flat(), new HumanMessage({ id: "q", content: "And in total?" })];
}

/** Older results stay whole while the history fits (micro-compaction would clear all but the newest three). */
const band = { keepRecentToolResults: 100 };

const form = (view: { messages: BaseMessage[] }, id: string) => {
  const message = view.messages.find((m) => m.id === id);
  return message === undefined ? "left out" : (compactionMarkerOf(message)?.form ?? "whole");
};

/** Whether a view leaves more than a quarter of its limit unused while an older turn it leaves out would fit with its results cleared. */
function idle(view: ReturnType<typeof buildContext>, messages: readonly BaseMessage[]): boolean {
  const cleared = (turn: BaseMessage[]) =>
    estimator.estimateMessages(turn.map((m) => (ToolMessage.isInstance(m) ? new ToolMessage({ tool_call_id: m.tool_call_id, content: "[result cleared]" }) : m)));
  return idleFor(view, messages, cleared) !== undefined;
}

describe("older turns kept with their results cleared before they go, with the default steps", () => {
  it("shows the newest older turns whole and the ones before them with their results cleared, every call with its result and arguments", () => {
    const messages = conversation(40);
    const view = buildContext({ messages, budget: { promptBudget: 6000 }, ...band });
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
    expect(form(view, "t39")).toBe("whole");
    const forms = Array.from({ length: 40 }, (_, i) => form(view, `t${i}`));
    // Newest first: whole, then cleared, then (if any) left out — never whole after cleared, nor cleared after left out.
    const order = ["whole", "cleared", "left out"];
    const ranks = forms.reverse().map((f) => order.indexOf(f));
    expect(ranks.every((rank, j) => rank >= 0 && (j === 0 || rank >= ranks[j - 1]!))).toBe(true);
    expect(forms).toContain("cleared");
    for (let i = 0; i < 40; i++) {
      if (form(view, `t${i}`) !== "cleared") continue;
      // The call keeps its arguments and its id; the request and the answer of its turn are whole.
      const at = view.messages.findIndex((m) => m.id === `a${i}`);
      expect((view.messages[at] as AIMessage).tool_calls?.[0]).toMatchObject({ id: `call-${i}`, args: { week: i } });
      expect((view.messages[at + 1] as ToolMessage).tool_call_id).toBe(`call-${i}`);
      expect(view.messages.find((m) => m.id === `f${i}`)?.content).toBe(`Week ${i}: ${(10 + ((i * 7) % 23)) * 12} euros in all.`);
    }
    expect(view.report.toolResults.cleared).toBe(forms.filter((f) => f === "cleared").length);
  });

  it("leaves a view more than a quarter unused while a turn it leaves out would fit cleared on far fewer calls, and on none with steps of 1/12", () => {
    const all = conversation(80);
    const idleViews = (options: object) => {
      let views = 0;
      for (let turns = 6; turns <= 80; turns++) {
        const messages = [...all.slice(0, turns * 4), new HumanMessage({ id: `q${turns}`, content: "Next?" })];
        if (idle(buildContext({ messages, budget: { promptBudget: 5000 }, ...options }), messages)) views++;
      }
      return views;
    };
    // 75 views. With whole turns alone on their anchor (before the band) 40 and 42 of them stood idle; 19 and 15 with it.
    expect(idleViews({})).toBeLessThan(75 / 3);
    expect(idleViews(band)).toBeLessThan(75 / 3);
    // Steps of 1/12 keep both anchors' windows at three quarters of their room.
    expect(idleViews({ dropStep: 1 / 12, ...band })).toBe(0);
  });

  it("sends the band again as it was while the conversation grows: the older part changes where a whole turn joins the band, rarely before", () => {
    const all = conversation(80);
    let previous: { text: string[]; bandEnd: number } | undefined;
    let headMoves = 0;
    let calls = 0;
    for (let turns = 20; turns <= 80; turns++) {
      const messages = [...all.slice(0, turns * 4), new HumanMessage({ id: `q${turns}`, content: "Next?" })];
      const view = buildContext({ messages, budget: { promptBudget: 5000 }, ...band });
      const text = view.messages.slice(0, -1).map((m) => JSON.stringify([m.type, m.content]));
      // The band ends right before the first older message shown whole after a cleared result.
      const lastCleared = view.messages.reduce((at, m, i) => (compactionMarkerOf(m)?.form === "cleared" ? i : at), -1);
      const bandEnd = lastCleared < 0 ? 0 : view.messages.findIndex((m, i) => i > lastCleared && m.type === "human");
      if (previous !== undefined && previous.text.slice(0, previous.bandEnd).some((line, i) => line !== text[i])) headMoves++;
      previous = { text, bandEnd };
      calls++;
    }
    // The band's anchor moved on few calls; on the others everything up to the band's end was sent again as it was.
    expect(headMoves).toBeGreaterThan(0);
    expect(headMoves).toBeLessThan(calls / 6);
  });

  it("keeps a result no larger than its notice as it is", () => {
    const tiny = (i: number) => [
      new HumanMessage({ id: `h${i}`, content: `Is job ${i} done?` }),
      new AIMessage({ id: `a${i}`, content: "", tool_calls: [{ id: `call-${i}`, name: "status", args: { job: i }, type: "tool_call" }] }),
      new ToolMessage({ id: `t${i}`, tool_call_id: `call-${i}`, name: "status", content: "ok" }),
      new AIMessage({ id: `f${i}`, content: `Job ${i} is done.` }),
    ];
    const messages = [...searchTurn(0, 200), ...tiny(1), ...searchTurn(2, 30), ...searchTurn(3, 30), new HumanMessage({ id: "q", content: "Next?" })];
    const whole = buildContext({ messages, budget: { promptBudget: 100_000 } }).report.tokens.total;
    const view = buildContext({ messages, budget: { promptBudget: whole - 2500 }, ...band });
    expect(form(view, "t0")).toBe("cleared");
    expect(form(view, "t1")).toBe("whole");
  });

  it("is not used beside a summary with steps, nor while every result waits for its summary", () => {
    const messages = conversation(40);
    const historyMessage = new AIMessage({ content: "Summary: the user reviews weekly spending." });
    const summarized = buildContext({ messages, historyMessage, budget: { promptBudget: 6000 }, ...band });
    expect(summarized.report.turns.dropped).toBeGreaterThan(0);
    expect(summarized.report.toolResults.cleared).toBe(0);
    const waiting = buildContext({ messages, budget: { promptBudget: 6000 }, keepRecentToolResults: EVERY_TOOL_RESULT });
    expect(waiting.report.turns.dropped).toBeGreaterThan(0);
    expect(waiting.messages.some((m) => compactionMarkerOf(m)?.form === "cleared")).toBe(false);
  });

  it("marks an Anthropic breakpoint at the end of the band, and one inside it when the head is too short to cache", () => {
    const marks = (view: { messages: BaseMessage[] }) =>
      view.messages.flatMap((m, i) => (Array.isArray(m.content) && m.content.some((b) => typeof b === "object" && b !== null && "cache_control" in b) ? [i] : []));
    /** Index of the band's last message: the answer of the newest turn shown with its result cleared. */
    const bandEnd = (view: { messages: BaseMessage[] }) => view.messages.reduce((at, m, i) => (compactionMarkerOf(m)?.form === "cleared" ? i : at), -1) + 1;
    const messages = conversation(40);
    const short = buildContext({ messages, budget: { promptBudget: 6000 }, cacheBreakpoints: true, ...band });
    const end = bandEnd(short);
    expect(short.messages[end]?.type).toBe("ai");
    expect(short.messages[end + 1]?.type).toBe("human");
    // The pinned block (label and opening request, under 1,024 tokens) gives its breakpoint to a turn inside the band.
    const firstBand = short.messages.findIndex((m) => compactionMarkerOf(m)?.form === "cleared") - 2;
    const [inBand, atEnd, older] = marks(short);
    expect(inBand).toBeGreaterThan(firstBand);
    expect(inBand).toBeLessThan(end);
    expect(atEnd).toBe(end);
    expect(older).toBe(short.messages.length - 2);
    // A head long enough to cache keeps its breakpoint: the system prompt, 2,700 tokens.
    const systemPrompt = "You are a careful assistant. ".repeat(400);
    const long = buildContext({ messages, systemPrompt, budget: { promptBudget: 9000 }, cacheBreakpoints: true, ...band });
    const headEnd = long.messages.findIndex((m) => compactionMarkerOf(m)?.form === "cleared") - 3;
    expect(marks(long)).toEqual([headEnd, bandEnd(long), long.messages.length - 2]);
  });
});
