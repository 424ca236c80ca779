import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator } from "@contextview/core";
import { RECALL_LABEL } from "../../src/view/recall.js";
import { COMMON_TERM_SHARE, FREQUENT_TERM } from "../../src/lexical/bm25";
import { ConversationIndex, conversationIndex, searchableText } from "../../src/lexical/conversation-index";
import { RECALL_QUIET_TURNS, recallRuns } from "../../src/view/recall-gate";
import { briefBudget, recallBlock } from "../../src/view/recall";
import { withNeighbours } from "../../src/lexical/neighbours";
import { searchTerms, termOf } from "../../src/lexical/search-terms";
import { deepFreeze, snapshot, viewProblems } from "@contextview/test-support";

const estimator = createEstimator();
const budget = { contextWindow: 32768, responseReserve: 4096, promptBudget: 4000 };
/** The default, given explicitly where a test is about recall itself (a brief of 250 tokens). */
const recallBudget = 4000;

/** A long chat: `n` turns of small talk, with a fact planted at turn `at`, then a question about it. */
function chat(n: number, at: number, question = "What is the name of my dog?"): BaseMessage[] {
  const messages: BaseMessage[] = [new SystemMessage("You are a friendly assistant.")];
  for (let i = 0; i < n; i++) {
    const user = i === at ? "We adopted a beagle last spring, his name is Biscuit and he loves the park." : `Turn ${i}: the weather was ${i % 2 ? "sunny" : "grey"} and I cooked pasta with ${i % 3 ? "tomatoes" : "mushrooms"} again, nothing special happened today.`;
    messages.push(new HumanMessage({ id: `u${i}`, content: user }), new AIMessage({ id: `a${i}`, content: `That sounds ${i % 2 ? "lovely" : "calm"}. Tell me more about your week and your plans for turn ${i + 1}.` }));
  }
  messages.push(new HumanMessage({ id: "q", content: question }));
  return messages;
}

describe("search terms", () => {
  it.each([
    ["Bookings of flights", ["book", "flight"]],
    ["RES-42 on 2023-05-08", ["res", "42", "2023", "05", "08", "res-42", "2023-05-08"]],
    ["Café CAFÉ café's", ["café", "café", "café"]],
    ["the a of I", []],
  ])("%s", (text, expected) => {
    expect(searchTerms(text)).toEqual(expected);
  });

  it("reads a run of 200,000 letters once, not again from each of its characters", () => {
    // Quadratic before: a 20,000-letter run took a second, so this one about a hundred.
    expect(searchTerms(`${"iVBORw0KGgo".repeat(18_200)} RES-42`)).toEqual([`${"iVBORw0KGgo".repeat(18_200)}`.toLowerCase(), "res", "42", "res-42"]);
    expect(searchTerms("x9".repeat(100_000))).toHaveLength(1);
  });

  it("folds endings only on stems of three letters or more", () => {
    expect(termOf("dogs")).toBe("dog");
    expect(termOf("was")).toBe("was");
    expect(termOf("2023")).toBe("2023");
  });
});

describe("the conversation index", () => {
  it("ranks by BM25, ties by index, and only what `accept` admits", () => {
    const messages = chat(40, 5);
    const index = new ConversationIndex();
    index.sync(messages);
    const question = messages.length - 1;
    const ranked = index.rank(searchTerms("name of my dog beagle"), (i) => i < question, 5);
    expect(ranked[0]?.index).toBe(1 + 2 * 5);
    expect(index.rank(searchTerms("beagle"), (i) => i !== 11, 5)).toEqual([]);
    // Two messages with the same text score the same: the older comes first.
    const twins = new ConversationIndex();
    twins.sync([new HumanMessage({ id: "x", content: "red kite" }), new AIMessage({ id: "y", content: "blue" }), new HumanMessage({ id: "z", content: "red kite" })]);
    expect(twins.rank(searchTerms("kite"), () => true, 5).map((r) => r.index)).toEqual([0, 2]);
  });

  it("indexes only what was appended, and starts again after a fork", () => {
    const messages = chat(20, 3);
    const index = conversationIndex(messages);
    expect(index.size).toBe(messages.length);
    const grown = [...messages, new AIMessage({ id: "late", content: "Biscuit the beagle says hi" })];
    expect(conversationIndex(grown)).toBe(index);
    expect(index.size).toBe(grown.length);
    // The same messages read anew (a checkpoint deserialized again): same ids and text, same index.
    const copies = grown.map((m) => (m.type === "human" ? new HumanMessage({ id: m.id!, content: m.content }) : m));
    expect(conversationIndex(copies)).toBe(index);
    // An edited message in the prefix: rebuilt.
    const forked = [...copies];
    forked[7] = new HumanMessage({ id: forked[7]!.id!, content: "an edited message about giraffes" });
    conversationIndex(forked);
    expect(index.rank(searchTerms("giraffes"), () => true, 3).map((r) => r.index)).toEqual([7]);
  });

  it("rebuilds after an edit that keeps the id in the middle of a long prefix, read anew or in place", () => {
    const messages = chat(1500, 3);
    const index = new ConversationIndex();
    index.sync(messages);
    const anew = messages.map((m) => (m.type === "human" ? new HumanMessage({ id: m.id!, content: m.content }) : m.type === "ai" ? new AIMessage({ id: m.id!, content: m.content }) : m));
    index.sync(anew);
    expect(index.rank(searchTerms("giraffes"), () => true, 3)).toEqual([]);
    // Read anew, one message edited under its id: its text hash tells it.
    const edited = [...anew];
    edited[1501] = new HumanMessage({ id: edited[1501]!.id!, content: "an edited message about giraffes" });
    index.sync(edited);
    expect(index.rank(searchTerms("giraffes"), () => true, 3).map((r) => r.index)).toEqual([1501]);
    // The same objects but one replaced in place (an in-process update by id), then the old one back.
    const back = [...edited];
    back[1501] = anew[1501]!;
    index.sync(back);
    expect(index.rank(searchTerms("giraffes"), () => true, 3)).toEqual([]);
    const inPlace = [...back];
    inPlace[2201] = new AIMessage({ id: inPlace[2201]!.id!, content: "giraffes again" });
    index.sync(inPlace);
    expect(index.rank(searchTerms("giraffes"), () => true, 3).map((r) => r.index)).toEqual([2201]);
    // A message removed from the middle and one appended: the same length, not the same prefix.
    const removed = [...inPlace.slice(0, 700), ...inPlace.slice(701), new HumanMessage({ id: "new", content: "zebras" })];
    index.sync(removed);
    expect(index.size).toBe(removed.length);
    expect(index.rank(searchTerms("giraffes"), () => true, 3).map((r) => r.index)).toEqual([2200]);
  });

  it("keeps numbers derived from a message while it is the same object: kept on append, dropped for a message read anew, on a rebuild and for another owner", () => {
    const messages = chat(20, 3);
    const index = new ConversationIndex();
    index.sync(messages);
    const owner = {};
    const derived = index.derived(owner);
    for (let i = 0; i < messages.length; i++) derived.set(i, i * 10);
    // Appended: the messages before stay the same objects.
    const longer = [...messages, new HumanMessage({ id: "more", content: "more" })];
    index.sync(longer);
    expect(index.derived(owner).get(19)).toBe(190);
    // Message 5 read anew (a new object, same id and text): its entry goes, the others stay.
    const anew = longer.map((m, i) => (i === 5 ? new HumanMessage({ id: m.id!, content: m.content }) : m));
    index.sync(anew);
    expect(index.derived(owner).has(5)).toBe(false);
    expect(index.derived(owner).get(4)).toBe(40);
    // Another owner starts afresh, and takes the place of the first.
    expect(index.derived({}).size).toBe(0);
    expect(index.derived(owner).size).toBe(0);
    index.derived(owner).set(3, 30);
    // A fork rebuilds the index: nothing derived is left.
    index.sync([...anew.slice(0, 4), new HumanMessage({ id: "fork", content: "a fork" })]);
    expect(index.derived(owner).size).toBe(0);
  });

  it.each([0, 1, 7, 8, 9, 15, 16, 17, 40])("rebuilds after an edit at position %i of the prefix, in place or read anew (the check compares eight messages a step)", (at) => {
    const messages = chat(20, 3);
    const index = new ConversationIndex();
    index.sync(messages);
    const edited = (others: BaseMessage[]) => others.map((m, i) => (i === at ? new HumanMessage({ ...(m.id === undefined ? {} : { id: m.id }), content: "giraffes at the gate" }) : m));
    const anew = messages.map((m) => (m.type === "human" ? new HumanMessage({ id: m.id!, content: m.content }) : m.type === "ai" ? new AIMessage({ id: m.id!, content: m.content }) : m));
    for (const others of [messages, anew]) {
      index.sync(edited(others));
      expect(index.rank(searchTerms("giraffes"), () => true, 3).map((r) => r.index)).toEqual([at]);
      index.sync(others);
      expect(index.rank(searchTerms("giraffes"), () => true, 3)).toEqual([]);
    }
  });

  it("ranks exactly as scoring every posting and sorting would, with ties to the older message, also when it stops early", () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const rare = ["oven", "lamp", "gate", "wolf", "moss", "reed", "fern", "dune", "cove", "peak", "vale", "glen"];
    // Per word: "kite" or "red" half the time (each in most messages), "tile" 1 in 40, else one of the rare words.
    const word = () => {
      const x = next();
      return x < 0.5 ? (next() < 0.5 ? "kite" : "red") : x < 0.525 ? "tile" : (rare[Math.floor(next() * rare.length)] as string);
    };
    const message = (i: number) => new HumanMessage({ id: `m${i}`, content: Array.from({ length: 1 + Math.floor(next() * 6) }, word).join(" ") });
    const messages = Array.from({ length: 900 }, (_, i) => message(i));
    const index = new ConversationIndex();
    const check = () => {
      index.sync(messages);
      const texts = messages.map((m, i) => searchTerms(searchableText(m, i)));
      const n = texts.length;
      const avg = texts.reduce((sum, t) => sum + t.length, 0) / n;
      // By term: "kite" is indexed as "kit" (see termOf).
      const dfs = new Map(["kite", "red", "tile", ...rare].map((w) => [termOf(w), texts.filter((t) => t.includes(termOf(w))).length]));
      for (const words of [["kite"], ["red", "kite"], ["lamp", "kite", "wolf", "red"], ["gate"], ["wolf", "red"], ["tile"], ["tile", "kite"], ["tile", "oven"]]) {
        const query = words.map(termOf);
        for (const max of [1, 5, 50, 5000]) {
          const accept = (i: number) => i % 7 !== 3;
          const expected = texts
            .map((terms, i) => {
              let score = 0;
              for (const term of query) {
                const tf = terms.filter((t) => t === term).length;
                const df = dfs.get(term) as number;
                // A term in more than a tenth of the messages is not length-normalised (b = 0).
                const b = df > COMMON_TERM_SHARE * n ? 0 : 0.75;
                if (tf > 0) score += (Math.log(1 + (n - df + 0.5) / (df + 0.5)) * tf * (1.2 + 1)) / (tf + 1.2 * (1 - b + (b * terms.length) / avg));
              }
              return { index: i, score };
            })
            .filter((r) => r.score > 0 && accept(r.index))
            .sort((a, b) => b.score - a.score || a.index - b.index)
            .slice(0, max);
          expect(expected.length).toBeGreaterThan(0);
          expect(index.rank(query, accept, max)).toEqual(expected);
          expect(index.countMatches(query, accept, max)).toBe(expected.length);
        }
      }
      return { n, dfs };
    };
    // "kite" and "red" are in hundreds of messages, more than a tenth (read by impact, in index order
    // within one frequency); "tile" in fewer than a tenth (normalised), and fewer than FREQUENT_TERM.
    const first = check();
    expect(first.dfs.get(termOf("kite"))).toBeGreaterThan(Math.max(FREQUENT_TERM, COMMON_TERM_SHARE * first.n));
    expect(first.dfs.get(termOf("tile"))).toBeLessThan(Math.min(FREQUENT_TERM, COMMON_TERM_SHARE * first.n));
    // Appended messages reach the impact-ordered postings built by the first ranking; "tile" is now
    // read by impact too, still normalised.
    for (let i = 900; i < 3500; i++) messages.push(message(i));
    const grown = check();
    expect(grown.dfs.get(termOf("tile"))).toBeGreaterThanOrEqual(FREQUENT_TERM);
    expect(grown.dfs.get(termOf("tile"))).toBeLessThanOrEqual(COMMON_TERM_SHARE * grown.n);
  });

  it("searches tool names, call arguments and result text, not system messages", () => {
    const call = new AIMessage({ id: "c", content: "", tool_calls: [{ id: "t1", name: "find_order", args: { order_id: "ORD-77" } }] });
    expect(searchableText(call, 0)).toContain("ORD-77");
    expect(searchableText(new ToolMessage({ tool_call_id: "t1", name: "find_order", content: "shipped" }), 1)).toBe("find_order shipped");
    expect(searchableText(new SystemMessage("secret rules"), 0)).toBe("");
  });
});

describe("the recall stage of buildContext", () => {
  it("brings a fact from turn 3 of 300 back into a 4,000-token view, labelled, before the current turn", () => {
    const messages = deepFreeze(chat(300, 3));
    const before = snapshot(messages);
    const input = { messages, budget, recallBudget };
    const view = buildContext(input);
    expect(viewProblems({ conversation: messages, messages, before, estimator, rebuild: () => buildContext(input).messages }, view)).toEqual([]);
    const text = JSON.stringify(view.messages);
    expect(text).toContain("Biscuit");
    const label = view.messages.findIndex((m) => m.content === RECALL_LABEL);
    expect(label).toBeGreaterThan(0);
    expect(view.messages[label + 1]?.type).toBe("ai");
    expect(String(view.messages[label + 1]?.content)).toContain("[#7 · user · id u3]");
    expect(view.messages[label + 2]?.id).toBe("q");
    expect(view.report.recall.recalled).toBeGreaterThan(0);
    expect(view.report.tokens.recall).toBe(estimator.estimateMessages(view.messages.slice(label, label + 2)));
    // Recall is on by default; switched off, the fact is out of reach.
    expect(JSON.stringify(buildContext({ messages, budget }).messages)).toBe(JSON.stringify(view.messages));
    const off = buildContext({ messages, budget, recallBudget: 0 });
    expect(JSON.stringify(off.messages)).not.toContain("Biscuit");
    expect(off.report.recall).toEqual({ outcome: "off", brief: false, queryTerms: 0, candidates: 0, recalled: 0, recent: 0, tokens: 0 });
    expect(view.report.recall.outcome).toBe("recalled");
  });

  it("ranks the best candidates first and the rest only when the block has room for more: the same block, all matches counted", () => {
    const notes = Array.from({ length: 250 }, (_, i) => new HumanMessage({ id: `n${i}`, content: `orchid note ${i}${i % 5 === 0 ? " orchid" : ""}` }));
    const conversation = [...notes, new HumanMessage({ id: "q", content: "Which orchid notes?" })];
    const end = conversation.length - 1;
    const recall = (budget: number) => recallBlock({ conversation, lead: 0, end, request: end, shownIds: new Set(), budget, queryFromTurn: false, estimator });
    const accept = (i: number) => i >= 0 && i < end;
    const order = withNeighbours(conversationIndex(conversation).rank(searchTerms("Which orchid notes?"), accept, 200), accept, 32);
    const ranked = Array.from({ length: 250 }, (_, k) => order.at(k)).filter((r) => r !== undefined);
    const small = recall(300);
    const large = recall(40_000);
    for (const block of [small, large]) expect(block.report.candidates).toBe(200);
    // A small block takes the best; one with room for more than the first ranking's 32
    // takes all 200 and the neighbours of those 32, in conversation order.
    expect(small.indices).toEqual(ranked.slice(0, small.indices.length).map((r) => r.index).sort((a, b) => a - b));
    expect(large.indices).toEqual(ranked.map((r) => r.index).sort((a, b) => a - b));
  });

  it("fills the room the matches leave with the newest messages left out: \"ok\" after 300 turns sees as far back as without recall", () => {
    const ids = (view: ReturnType<typeof buildContext>) => {
      const block = view.messages[view.messages.findIndex((m) => m.content === RECALL_LABEL) + 1];
      const lines = typeof block?.content === "string" ? [...block.content.matchAll(/· id ([^\]]+)\]/g)].map((m) => m[1] as string) : [];
      return new Set([...view.messages.map((m) => m.id).filter((id): id is string => id !== undefined), ...lines]);
    };
    /** How many of the conversation's newest messages, before the request, the view shows without a gap. */
    const newestShown = (messages: BaseMessage[], view: ReturnType<typeof buildContext>) => {
      const shown = ids(view);
      let n = 0;
      for (let i = messages.length - 2; i > 0 && shown.has(messages[i]?.id as string); i--) n++;
      return n;
    };
    for (const request of ["ok", "thanks!", "xylophone zeppelin quokka"]) {
      const messages = deepFreeze(chat(300, 3, request));
      const before = snapshot(messages);
      const on = buildContext({ messages, budget, recallBudget });
      const off = buildContext({ messages, budget, recallBudget: 0 });
      expect(on.report.recall).toMatchObject({ outcome: "recent", candidates: 0 });
      expect(on.report.recall.recent).toBe(on.report.recall.recalled);
      expect(on.report.tokens.total).toBeLessThanOrEqual(on.report.limit);
      expect(viewProblems({ conversation: messages, messages, before, estimator, rebuild: () => buildContext({ messages, budget, recallBudget }).messages }, on)).toEqual([]);
      // The older turns keep their reserve-sized room (the same head as for any request);
      // the block shows the messages just before them, so the view reaches about as far back.
      expect(newestShown(messages, on)).toBeGreaterThanOrEqual(Math.floor(0.9 * newestShown(messages, off)));
      expect(String(on.messages[on.messages.findIndex((m) => m.content === RECALL_LABEL) + 1]?.content)).toContain("(or, where room is left, are the newest not shown)");
    }
    // A question that matches a few messages: those first, then the newest left out in the room they leave.
    const messages = chat(300, 3, "What is the name of my dog Biscuit?");
    const view = buildContext({ messages, budget, recallBudget });
    expect(view.report.recall.outcome).toBe("recalled");
    expect(view.report.recall.recent).toBeGreaterThan(0);
    expect(view.report.recall.recalled).toBeGreaterThan(view.report.recall.recent);
    expect(ids(view).has("u3")).toBe(true);
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
  });

  it("takes no reserve for a request without a search term: a later call of its turn keeps the older turns recall off keeps", () => {
    for (const request of ["ok", "please do"]) {
      const asked = chat(300, 3, request);
      const call = new AIMessage({ id: "c1", content: "", tool_calls: [{ id: "t1", name: "lookup", args: {} }] });
      const messages = [...asked, call, new ToolMessage({ id: "r1", tool_call_id: "t1", name: "lookup", content: "done" })];
      const on = buildContext({ messages, budget, recallBudget });
      const off = buildContext({ messages, budget, recallBudget: 0 });
      // Nothing could match on any call of the turn: no room held for the block, none left idle.
      expect(on.report.recall.queryTerms).toBe(0);
      expect(on.report.recall.tokens).toBe(0);
      expect(on.report.turns.kept).toBe(off.report.turns.kept);
      expect(on.messages.map((m) => m.id)).toEqual(off.messages.map((m) => m.id));
      expect(on.report.tokens.total).toBeGreaterThan(0.75 * on.report.limit);
    }
    // A request with a search term keeps its reserve on the later calls, matched or not.
    const asked = chat(300, 3, "What is the name of my dog?");
    const call = new AIMessage({ id: "c1", content: "", tool_calls: [{ id: "t1", name: "lookup", args: {} }] });
    const messages = [...asked, call, new ToolMessage({ id: "r1", tool_call_id: "t1", name: "lookup", content: "done" })];
    const kept = (budgetForRecall: number) => buildContext({ messages, budget, recallBudget: budgetForRecall }).report.turns.kept;
    expect(kept(recallBudget)).toBeLessThan(kept(0));
  });

  it("says why a view has no recalled block", () => {
    const outcome = (messages: BaseMessage[], extra: { recallBudget?: number; dropStep?: number } = {}) => buildContext({ messages, budget, recallBudget, ...extra }).report.recall;
    // The whole conversation fits: nothing is left out to search.
    expect(outcome(chat(4, 1)).outcome).toBe("nothing-left-out");
    // A request of stopwords only has no search term, and words no message outside the view
    // holds match nothing: the block holds the newest messages left out.
    expect(outcome(chat(300, 3, "what is it?"))).toMatchObject({ outcome: "recent", queryTerms: 0, candidates: 0 });
    expect(outcome(chat(300, 3, "xylophone zeppelin quokka"))).toMatchObject({ outcome: "recent", candidates: 0 });
    // A brief (after tool turns) is only for the request's words the view lacks: none here, nothing fills.
    const afterTools = (question: string) => {
      const messages = chat(300, 3, question);
      const request = messages.pop() as BaseMessage;
      messages.push(new AIMessage({ id: "t", content: "", tool_calls: [{ id: "k", name: "lookup", args: {} }] }), new ToolMessage({ id: "tr", tool_call_id: "k", name: "lookup", content: "done" }), new AIMessage({ id: "td", content: "Done." }), request);
      return outcome(messages);
    };
    expect(afterTools("what is it?")).toMatchObject({ outcome: "no-query", brief: false, recalled: 0 });
    expect(afterTools("xylophone zeppelin quokka")).toMatchObject({ outcome: "all-in-view", recalled: 0 });
    // A reserve too small for the block's label and header, and no room the anchors leave (dropStep 0).
    expect(outcome(chat(300, 3), { recallBudget: 20, dropStep: 0 }).outcome).toBe("no-room");
    expect(outcome(chat(300, 3), { recallBudget: 0 }).outcome).toBe("off");
    expect(outcome(chat(300, 3)).outcome).toBe("recalled");
  });

  it("never brings back what the view shows, nor an orphan result or an unfinished call", () => {
    const messages: BaseMessage[] = [...chat(120, 60, "Where is the parcel ORD-77 and did Biscuit like it?")];
    // Old tool traffic about ORD-77: an orphan result, an unfinished call, and a proper exchange.
    messages.splice(20, 0,
      new ToolMessage({ id: "orphan", tool_call_id: "nobody", name: "find_order", content: "ORD-77 orphan result" }),
      new AIMessage({ id: "unfinished", content: "", tool_calls: [{ id: "never", name: "find_order", args: { order_id: "ORD-77" } }] }),
      new HumanMessage({ id: "u-mid", content: "ok" }),
      new AIMessage({ id: "call", content: "", tool_calls: [{ id: "t9", name: "find_order", args: { order_id: "ORD-77" } }] }),
      new ToolMessage({ id: "result", tool_call_id: "t9", name: "find_order", content: "ORD-77 is in Lisbon" }),
      new AIMessage({ id: "told", content: "Your parcel ORD-77 is in Lisbon." }),
    );
    const view = buildContext({ messages: deepFreeze(messages), budget, recallBudget });
    const block = view.messages.find((_m, i) => view.messages[i - 1]?.content === RECALL_LABEL);
    const text = String(block?.content);
    expect(text).toContain("ORD-77 is in Lisbon");
    expect(text).not.toContain("orphan result");
    expect(text).not.toContain("id unfinished");
    // Nothing recalled is also shown whole: every recalled id is absent from the rest of the view.
    const ids = [...text.matchAll(/id ([\w-]+)\]/g)].map((m) => m[1]);
    for (const id of ids) expect(view.messages.some((m) => m.id === id)).toBe(false);
  });

  it("leaves the older turns where they were whatever it finds: the same head for two requests", () => {
    const base = chat(200, 3);
    const a = buildContext({ messages: [...base.slice(0, -1), new HumanMessage({ id: "q1", content: "What is the name of my dog?" })], budget, recallBudget });
    const b = buildContext({ messages: [...base.slice(0, -1), new HumanMessage({ id: "q2", content: "Which pasta did I cook?" })], budget, recallBudget });
    expect(a.report.cut).toBe(b.report.cut);
    const olderOf = (v: typeof a) => v.messages.slice(0, v.messages.findIndex((m) => m.content === RECALL_LABEL));
    expect(JSON.stringify(olderOf(a))).toBe(JSON.stringify(olderOf(b)));
  });

  /** `chat(300, 3)` with a search exchange inside the turn `back` turns before the question. */
  function withToolTurn(back: number): BaseMessage[] {
    const messages = chat(300, 3);
    const turn = 300 - back;
    messages.splice(2 + 2 * turn, 0,
      new AIMessage({ id: `call${turn}`, content: "", tool_calls: [{ id: `t${turn}`, name: "search_notes", args: { query: "weekend" } }] }),
      new ToolMessage({ id: `result${turn}`, tool_call_id: `t${turn}`, name: "search_notes", content: "no notes about the weekend" }),
    );
    return messages;
  }

  /** The view without its recalled block (label and block), and the block's text. */
  const split = (view: { messages: BaseMessage[] }) => {
    const label = view.messages.findIndex((m) => m.content === RECALL_LABEL);
    if (label < 0) return { rest: view.messages, block: undefined };
    return { rest: [...view.messages.slice(0, label), ...view.messages.slice(label + 2)], block: String(view.messages[label + 1]?.content) };
  };

  it(`after tool calls in the ${RECALL_QUIET_TURNS} turns before the request: no reserve, a brief on the turn's first call`, () => {
    for (let back = 1; back <= RECALL_QUIET_TURNS + 1; back++) {
      const messages = deepFreeze(withToolTurn(back));
      const before = snapshot(messages);
      const view = buildContext({ messages, budget, recallBudget });
      const off = buildContext({ messages, budget, recallBudget: 0 });
      expect(viewProblems({ conversation: messages, messages, before, estimator, rebuild: () => buildContext({ messages, budget, recallBudget }).messages }, view)).toEqual([]);
      const { rest, block } = split(view);
      if (back <= RECALL_QUIET_TURNS) {
        // The older turns give up nothing: without the brief, the view is the one without recall.
        expect(JSON.stringify(rest)).toBe(JSON.stringify(off.messages));
        expect(block).toContain("[#7 · user · id u3]");
        expect(view.messages.at(-1)?.id).toBe("q");
        expect(view.report.recall).toMatchObject({ outcome: "recalled", brief: true });
        expect(view.report.recall.tokens).toBeLessThanOrEqual(briefBudget(recallBudget));
      } else {
        expect(block).toContain("Biscuit");
        expect(view.report.recall.brief).toBe(false);
        expect(view.report.cut).toBeGreaterThan(off.report.cut);
      }
    }
  });

  it("after tool turns, brings back only what the view does not hold: no brief when every word of the request is in view", () => {
    const messages = withToolTurn(1);
    // Every word of this request is in the newest turns the view shows.
    messages[messages.length - 1] = new HumanMessage({ id: "q", content: "Tell me more about turn 299 and the sunny weather." });
    const view = buildContext({ messages, budget, recallBudget });
    expect(view.report.recall).toMatchObject({ outcome: "all-in-view", brief: false, recalled: 0, tokens: 0 });
    expect(JSON.stringify(view.messages)).toBe(JSON.stringify(buildContext({ messages, budget, recallBudget: 0 }).messages));
  });

  it("gives a brief 250 tokens at most, and at most a quarter of a smaller recallBudget", () => {
    expect([briefBudget(4000), briefBudget(16000), briefBudget(1000), briefBudget(400), briefBudget(0)]).toEqual([250, 250, 250, 100, 0]);
    // Under an explicit recallBudget of 1,000 the brief has its 250 tokens: room for the two
    // messages that hold the word the view lacks, not one.
    const messages = withToolTurn(1);
    messages[1 + 2 * 5] = new HumanMessage({ id: "u5", content: `Biscuit ${"chased the neighbour's cat around the garden and then slept by the fire all evening, ".repeat(2)}` });
    messages[messages.length - 1] = new HumanMessage({ id: "q", content: "Find my notes about the dog Biscuit." });
    const view = buildContext({ messages, budget, recallBudget: 1000 });
    expect(view.report.recall).toMatchObject({ outcome: "recalled", brief: true, recalled: 2 });
    expect(view.report.recall.tokens).toBeGreaterThan(Math.floor(1000 / 16));
    expect(view.report.recall.tokens).toBeLessThanOrEqual(250);
  });

  it("gives the brief to the first call of a turn only: the later calls, and the next turn, keep their prefix", () => {
    const messages = withToolTurn(1);
    messages[messages.length - 1] = new HumanMessage({ id: "q", content: "Find my notes about the dog Biscuit." });
    const step = (k: number) => [
      new AIMessage({ id: `c${k}`, content: "", tool_calls: [{ id: `s${k}`, name: "search_notes", args: { query: `beagle park ${k}` } }] }),
      new ToolMessage({ id: `r${k}`, tool_call_id: `s${k}`, name: "search_notes", content: `note ${k}: nothing found` }),
    ];
    const first = buildContext({ messages, budget, recallBudget });
    expect(split(first).block).toContain("Biscuit");
    // Its lines hold the word the view lacks: not the neighbours a block brings with a match.
    const lines = (split(first).block ?? "").split("\n").slice(1);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toContain("Biscuit");
    // The next call drops it: what the first call's cache loses is the request alone.
    const second = buildContext({ messages: [...messages, ...step(1)], budget, recallBudget });
    expect(second.report.recall.outcome).toBe("later-call");
    expect(JSON.stringify(second.messages)).toBe(JSON.stringify(buildContext({ messages: [...messages, ...step(1)], budget, recallBudget: 0 }).messages));
    const third = buildContext({ messages: [...messages, ...step(1), ...step(2)], budget, recallBudget });
    expect(JSON.stringify(third.messages.slice(0, second.messages.length))).toBe(JSON.stringify(second.messages));
  });

  it("keeps the same block on every call of a turn that calls tools, and leaves the next turn alone", () => {
    const messages = chat(300, 3);
    const step = (k: number) => [
      new AIMessage({ id: `c${k}`, content: "", tool_calls: [{ id: `s${k}`, name: "search_notes", args: { query: `dog ${k}` } }] }),
      new ToolMessage({ id: `r${k}`, tool_call_id: `s${k}`, name: "search_notes", content: `note ${k}: walks in the park` }),
    ];
    const block = (view: ReturnType<typeof buildContext>) => {
      const label = view.messages.findIndex((m) => m.content === RECALL_LABEL);
      return label < 0 ? undefined : JSON.stringify(view.messages.slice(0, label + 2));
    };
    expect(block(buildContext({ messages, budget }))).toContain("Biscuit");
    // The later calls of the tool loop keep to the reserve: the same block, the same prefix.
    const second = block(buildContext({ messages: [...messages, ...step(1)], budget }));
    expect(second).toContain("Biscuit");
    const loop = [...messages, ...step(1), ...step(2)];
    expect(block(buildContext({ messages: loop, budget }))).toBe(second);
    const next = [...loop, new AIMessage({ id: "done", content: "Biscuit, the beagle." }), new HumanMessage({ id: "q2", content: "And what did I cook?" })];
    expect(block(buildContext({ messages: next, budget }))).toBeUndefined();
  });

  it("reads the turns before the request back into the summarized prefix", () => {
    const lead = [new SystemMessage("rules")];
    const request = new HumanMessage({ id: "q", content: "What is my dog called?" });
    const chatTurn = (i: number) => [new HumanMessage({ id: `u${i}`, content: `hello ${i}` }), new AIMessage({ id: `a${i}`, content: `hi ${i}` })];
    const toolTurn = [
      new HumanMessage({ id: "ut", content: "search" }),
      new AIMessage({ id: "ct", content: "", tool_calls: [{ id: "t", name: "search_notes", args: {} }] }),
      new ToolMessage({ id: "rt", tool_call_id: "t", name: "search_notes", content: "none" }),
      new AIMessage({ id: "at", content: "nothing" }),
    ];
    const messages = [...lead, ...chatTurn(1), request];
    expect(recallRuns(messages, 1, 3, [...toolTurn, ...chatTurn(0)])).toBe(false);
    expect(recallRuns(messages, 1, 3, [...toolTurn, ...chatTurn(0), ...chatTurn(2)])).toBe(true);
    expect(recallRuns(messages, 1, 3, [])).toBe(true);
  });
});
