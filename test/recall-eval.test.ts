// The recall measurement of `pnpm eval recall` (eval/recall) behaves: the generator is
// deterministic and plants what its questions name, the visibility rule counts a view
// that shows the evidence and only that, and a fact planted at turn 3 is visible to
// the BM25 reference but not to trimMessages on a long chat.
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { generateConversation } from "../eval/recall/generator.js";
import { conversationMessages, evidenceRecall, questionMessage, turnDated, turnVisible, viewText } from "../eval/recall/measure.js";
import { haystackSource } from "../eval/recall/haystack.js";
import { runRecall } from "../eval/recall/run.js";
import { bm25System, buildContextDatedSystem, buildContextSystem, trimMessagesSystem } from "../eval/recall/systems.js";
import type { RecallSource } from "../eval/recall/types.js";
import { withUuidIds } from "../eval/recall/uuid-ids.js";

const conversation = generateConversation(26_000, 400);
const turns = new Map(conversation.turns.map((t) => [t.id, t]));
const third = conversation.questions.filter((q) => q.evidence.includes("D1:3"));

describe("recall evaluation", () => {
  it("generates the same conversation from the same seed, with a fact planted at turn 3", () => {
    expect(JSON.stringify(generateConversation(26_000, 400))).toBe(JSON.stringify(conversation));
    expect(conversation.turns).toHaveLength(400);
    expect(third.map((q) => q.category).sort()).toEqual(["overlap", "paraphrase"]);
    for (const q of conversation.questions) for (const id of q.evidence) expect(turns.has(id)).toBe(true);
  });

  it("counts an evidence turn as visible by id, or by its first 40 characters in any text, and nothing else", () => {
    const turn = turns.get("D1:3")!;
    const question = third[0]!;
    const [message] = conversationMessages(conversation).slice(2, 3);
    expect(message!.id).toBe("D1:3");
    expect(evidenceRecall(question, turns, viewText([message!, questionMessage(question)]))).toBe(1);
    const excerpt = new AIMessage({ id: "evidence", content: `Earlier: "${turn.text.slice(0, 45)}…"` });
    expect(turnVisible(turn, viewText([excerpt]))).toBe(true);
    const cut = new AIMessage({ id: "evidence", content: `Earlier: "${turn.text.slice(0, 30)}…"` });
    expect(turnVisible(turn, viewText([cut]))).toBe(false);
    expect(evidenceRecall(question, turns, viewText([new HumanMessage({ id: "D1:4", content: "Nice, good for you." })]))).toBe(0);
  });

  it("counts a short turn as visible on a line that names its id, its whole text there, and not elsewhere", () => {
    const short = { id: "D2:7", text: "Ha, nice one!" };
    const uuid = { id: "0f8e2a1c-5b7d-4e3f-9a6b-2c1d7c6b5a41", text: short.text };
    const block = (content: string) => new AIMessage({ content });
    expect(turnVisible(short, viewText([block("Messages from earlier:\n[#40 · user · id D2:7] Ha, nice one!")]))).toBe(true);
    expect(turnVisible(uuid, viewText([block("Messages from earlier:\n[#40 · user · id …7c6b5a41] Ha, nice one!")]))).toBe(true);
    // Another message's line, the text on another line, or a cut text: not visible.
    expect(turnVisible(short, viewText([block("[#41 · user · id D2:8] Ha, nice one!")]))).toBe(false);
    expect(turnVisible(short, viewText([block("[#40 · user · id D2:7] Right.\n[#42 · user · id D2:9] Ha, nice one!")]))).toBe(false);
    expect(turnVisible(short, viewText([block("[#40 · user · id D2:7] Ha, nice")]))).toBe(false);
    expect(turnVisible(short, viewText([block("[#40 · user · id D2:70] Ha, nice one!")]))).toBe(false);
  });

  it("dates a visible turn by its session's opening turn in the view, or by its date on the line that shows it, and nothing else", () => {
    const turn = turns.get("D1:3")!;
    const messages = conversationMessages(conversation);
    const opening = messages[0]!;
    expect(String(opening.content)).toContain(`(session 1, ${turn.date})`);
    const own = messages[2]!;
    expect(turnDated(turn, viewText([opening, own]), "D1:1")).toBe(true);
    expect(turnDated(turn, viewText([own]), "D1:1")).toBe(false);
    expect(turnDated(turn, viewText([opening]), "D1:1")).toBe(false);
    const line = (date: string) => new AIMessage({ content: `Messages from earlier:\n[#2 · user · id D1:3 · ${date}] ${turn.speaker}: ${turn.text}\n[#9 · user · id D1:10] other` });
    expect(turnDated(turn, viewText([line(turn.date)]), "D1:1")).toBe(true);
    expect(turnDated(turn, viewText([line("1 January 1999")]), "D1:1")).toBe(false);
    // Under a heading of its own date in the same message; not under another's, nor under one of another message.
    const block = (date: string) => new AIMessage({ content: `Messages from earlier:\n[date ${date}]\n[#2 · user · id D1:3] ${turn.speaker}: ${turn.text}` });
    expect(turnDated(turn, viewText([block(turn.date)]), "D1:1")).toBe(true);
    expect(turnDated(turn, viewText([block("1 January 1999")]), "D1:1")).toBe(false);
    const apart = [new AIMessage({ content: `[date ${turn.date}]` }), new AIMessage({ content: `[#2 · user · id D1:3] ${turn.speaker}: ${turn.text}` })];
    expect(turnDated(turn, viewText(apart), "D1:1")).toBe(false);
  });

  it("the dated view shows an old fact with its date; the undated one without", async () => {
    // Not session 1's: its opening turn is in every view (pinned as the conversation's opening request).
    const sessionOf = (id: string) => turns.get(id)!.session;
    const later = conversation.questions.filter((q) => q.category === "overlap" && q.evidence.every((id) => sessionOf(id) > 1 && sessionOf(id) < 5));
    expect(later.length).toBeGreaterThan(0);
    const source: RecallSource = { name: "test", description: "", conversations: [{ ...conversation, questions: later }] };
    const [plain, dated] = await runRecall(source, [buildContextSystem, buildContextDatedSystem], [4000]);
    expect([plain!.recall, dated!.recall]).toEqual([1, 1]);
    expect(dated!.dated).toBe(1);
    expect(plain!.dated).toBe(0);
  });

  it("weaves each chat's sessions with other chats' into a haystack: its own turns whole and in order, the others' ids apart, its questions", () => {
    const chats = [generateConversation(1, 80), generateConversation(2, 90), generateConversation(3, 100)];
    const source = haystackSource({ name: "g", description: "", conversations: chats }, 2);
    expect(source.conversations).toHaveLength(3);
    const [first] = source.conversations;
    expect(first!.turns).toHaveLength(80 + 90 + 100);
    // Its own turns, whole and in their order; every other turn's id marked as another chat's.
    const own = first!.turns.filter((t) => !/^x\d-/.test(t.id));
    expect(own.map((t) => [t.id, t.text, t.date])).toEqual(chats[0]!.turns.map((t) => [t.id, t.text, t.date]));
    expect(first!.turns.filter((t) => t.id.startsWith("x1-")).map((t) => t.text)).toEqual(chats[1]!.turns.map((t) => t.text));
    expect(first!.questions).toBe(chats[0]!.questions);
    // Sessions renumbered in order; own session 1 comes after the others' first sessions.
    const sessions = first!.turns.map((t) => t.session);
    expect(sessions).toEqual([...sessions].sort((a, b) => a - b));
    expect(own[0]!.session).toBe(3);
    expect(new Set(first!.turns.map((t) => t.id)).size).toBe(first!.turns.length);
  });

  it("re-keys a source with UUIDs as LangGraph gives them: every id distinct and UUID-shaped, the evidence the same turns, the same on every run", async () => {
    const chats = [generateConversation(1, 80), generateConversation(2, 90)];
    const source = withUuidIds({ name: "g", description: "", conversations: chats });
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const [k, c] of source.conversations.entries()) {
      const before = chats[k]!;
      expect(c.turns.every((t) => uuid.test(t.id))).toBe(true);
      expect(new Set(c.turns.map((t) => t.id)).size).toBe(c.turns.length);
      expect(c.turns.map((t) => t.text)).toEqual(before.turns.map((t) => t.text));
      // Each question's evidence names the same turns by their new ids.
      const textOf = (turns: typeof c.turns, id: string) => turns.find((t) => t.id === id)?.text;
      for (const [i, q] of c.questions.entries()) expect(q.evidence.map((id) => textOf(c.turns, id))).toEqual(before.questions[i]!.evidence.map((id) => textOf(before.turns, id)));
    }
    // One turn id ("D1:1") in two conversations gets two UUIDs; the same run twice, the same.
    expect(source.conversations[0]!.turns[0]!.id).not.toBe(source.conversations[1]!.turns[0]!.id);
    expect(withUuidIds({ name: "g", description: "", conversations: chats })).toEqual(source);
    // The views still find the fact from turn 3 by its new id.
    const [bm25] = await runRecall({ ...source, conversations: [source.conversations[0]!] }, [bm25System], [4000]);
    expect(bm25!.byCategory["overlap"]!.recall).toBeGreaterThan(0);
  });

  it("BM25 recalls the fact from turn 3 that trimMessages cannot see", async () => {
    const source: RecallSource = { name: "test", description: "", conversations: [{ ...conversation, questions: third }] };
    const [bm25, trim] = await runRecall(source, [bm25System, trimMessagesSystem], [4000]);
    expect(trim!.recall).toBe(0);
    expect(bm25!.recall).toBeGreaterThan(trim!.recall);
    expect(bm25!.byCategory["overlap"]!.recall).toBe(1);
    expect([bm25!.overBudget, trim!.overBudget]).toEqual([0, 0]);
  });
});
