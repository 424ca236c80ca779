import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator } from "@contextview/core";
import { RECALL_LABEL } from "../../src/view/recall.js";
import { viewProblems } from "@contextview/test-support";

// A cold call: the thread's messages as new objects with the same ids, as every request on a
// server reads them from the checkpointer. The recall index takes a message it has indexed
// by its id and a cheap fingerprint (role, length, ends), so a stale entry may only change
// what is ranked, never the text the view shows.

const estimator = createEstimator();
const budget = { contextWindow: 32768, responseReserve: 4096, promptBudget: 4000 };
const recallBudget = 4000;
const FACT = "We adopted a beagle last spring, his name is Biscuit and he loves the park.";

/** The arguments of the lookup at a turn. */
type Args = (turn: number) => Record<string, unknown>;

/**
 * `n` turns of small talk with `fact` at turn `at`, then `question`; every message has an id
 * under `prefix` (a conversation's index is found again by its first message's id), and
 * every tenth turn is a lookup whose call arguments come from `args`.
 */
function chat(prefix: string, n: number, at: number, fact: string, question: string, args: Args = (turn) => ({ week: turn })): BaseMessage[] {
  const messages: BaseMessage[] = [new SystemMessage({ id: `${prefix}-s`, content: "You are a friendly assistant." })];
  for (let i = 0; i < n; i++) {
    const user = i === at ? fact : `Turn ${i}: the weather was ${i % 2 ? "sunny" : "grey"} and I cooked pasta with ${i % 3 ? "tomatoes" : "mushrooms"} again.`;
    messages.push(new HumanMessage({ id: `${prefix}-u${i}`, content: user }));
    if (i % 10 === 9) {
      messages.push(
        new AIMessage({ id: `${prefix}-c${i}`, content: "", tool_calls: [{ id: `${prefix}-k${i}`, name: "weather", args: args(i), type: "tool_call" }] }),
        new ToolMessage({ id: `${prefix}-t${i}`, tool_call_id: `${prefix}-k${i}`, name: "weather", content: `Week ${i}: mild, some rain.` }),
      );
    }
    messages.push(new AIMessage({ id: `${prefix}-a${i}`, content: `That sounds ${i % 2 ? "lovely" : "calm"}. Tell me more about turn ${i + 1}.` }));
  }
  messages.push(new HumanMessage({ id: `${prefix}-q`, content: question }));
  return messages;
}

/** The same messages as new objects, as a checkpoint read anew gives them; `edit` replaces contents by id. */
function readAnew(messages: readonly BaseMessage[], edit: Record<string, string> = {}, args?: Args): BaseMessage[] {
  return messages.map((m) => {
    const fields = { id: m.id as string, content: edit[m.id as string] ?? m.content };
    if (m.type === "system") return new SystemMessage(fields);
    if (m.type === "human") return new HumanMessage(fields);
    if (m.type === "tool") return new ToolMessage({ ...fields, tool_call_id: (m as ToolMessage).tool_call_id, name: (m as ToolMessage).name as string });
    const turn = Number(/\d+$/.exec(m.id as string)?.[0]);
    const calls = ((m as AIMessage).tool_calls ?? []).map((call) => ({ ...call, args: args === undefined ? call.args : args(turn) }));
    return new AIMessage({ ...fields, tool_calls: calls });
  });
}

function recalledBlock(messages: readonly BaseMessage[]): string {
  const label = messages.findIndex((m) => m.content === RECALL_LABEL);
  return label < 0 ? "" : String(messages[label + 1]?.content);
}

describe("a cold call: the messages read anew", () => {
  it("gives the same view as the warm call before it", () => {
    const messages = chat("same", 300, 3, FACT, "What is the name of my dog?");
    const warm = buildContext({ messages, budget, recallBudget });
    expect(recalledBlock(warm.messages)).toContain("Biscuit");
    for (let copy = 0; copy < 3; copy++) {
      const cold = buildContext({ messages: readAnew(messages), budget, recallBudget });
      expect(JSON.stringify(cold.messages)).toBe(JSON.stringify(warm.messages));
      expect(cold.report.recall).toEqual(warm.report.recall);
      expect(cold.report.tokens).toEqual(warm.report.tokens);
    }
  });

  it("never shows the text a message had before an edit that keeps its id, its length and its ends", () => {
    // "Waffles" takes the place of "Biscuit": the same length, the same first and last characters.
    const edited = FACT.replace("Biscuit", "Waffles");
    expect(edited).toHaveLength(FACT.length);
    for (const question of ["What is the name of my dog?", "Is my dog called Biscuit?"]) {
      const prefix = question.length.toString();
      const messages = chat(prefix, 300, 3, FACT, question);
      expect(recalledBlock(buildContext({ messages, budget, recallBudget }).messages)).toContain("his name is Biscuit");
      const anew = readAnew(messages, { [`${prefix}-u3`]: edited });
      const view = buildContext({ messages: anew, budget, recallBudget });
      const shown = view.messages.map((m) => String(m.content)).join("\n");
      // The question may still say "Biscuit"; nothing else in the view may. Asked by the old
      // word, the index may still rank the message (a stale entry): its line says "Waffles".
      expect(shown.replace(question, "")).not.toContain("Biscuit");
      const block = recalledBlock(view.messages);
      if (question.includes("name") || block.includes(`id ${prefix}-u3]`)) expect(block).toContain(`id ${prefix}-u3] ${edited}`);
      const rebuild = () => buildContext({ messages: anew, budget, recallBudget }).messages;
      expect(viewProblems({ conversation: anew, messages: anew, estimator, rebuild }, view)).toEqual([]);
    }
  });

  it("re-indexes a message edited so that its fingerprint changes: it is found by its new words", () => {
    const question = "Is the hamster called Marzipan?";
    const messages = chat("edit", 300, 3, FACT, question);
    const before = buildContext({ messages, budget, recallBudget });
    expect(recalledBlock(before.messages)).not.toContain("Marzipan");
    const anew = readAnew(messages, { "edit-u3": "Our hamster is called Marzipan, she sleeps all day." });
    const after = buildContext({ messages: anew, budget, recallBudget });
    expect(after.report.recall.outcome).toBe("recalled");
    expect(recalledBlock(after.messages)).toContain("id edit-u3] Our hamster is called Marzipan");
    // The same view as a process that never saw the message before the edit.
    const fresh = readAnew(anew).map((m, i) => (i === 0 ? new SystemMessage({ id: "edit-other-s", content: m.content }) : m));
    expect(recalledBlock(buildContext({ messages: fresh, budget, recallBudget }).messages)).toBe(recalledBlock(after.messages));
  });

  it("recognises the messages without reading their whole text again: old tool calls' arguments are not serialized", () => {
    // Arguments that count how often they are serialized (the index reads a call's arguments as JSON).
    const serialized = new Map<number, number>();
    const counting = (turn: number) => ({ week: turn, toJSON: () => (serialized.set(turn, (serialized.get(turn) ?? 0) + 1), { week: turn }) });
    const messages = chat("args", 300, 3, FACT, "What is the name of my dog?", counting);
    buildContext({ messages, budget, recallBudget });
    // The first call indexed every message: the oldest lookups' arguments were read then.
    expect(serialized.get(9)).toBeGreaterThan(0);
    serialized.clear();
    const view = buildContext({ messages: readAnew(messages, {}, counting), budget, recallBudget });
    const oldest = Math.min(...[...serialized.keys(), 300]);
    // Only lookups the view shows or recalls are read; the oldest ten are neither.
    expect(view.report.recall.outcome).toBe("recalled");
    expect(recalledBlock(view.messages)).not.toContain("weather");
    expect(oldest).toBeGreaterThan(100);
  });
});
