import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { InMemoryContextStore } from "@contextview/core";
import { restoreSetAside, setAsideShown } from "../../src/evidence/set-aside";

const WORDS = ["we must", "decided to", "the budget", "never", "todo: check", "in UTC", "ledger", "shipping", "the café", "naïve"];

/** A chat of `n` turns whose texts draw on `picks` (keywords that select evidence buckets, accents, a message without an id). */
function chat(n: number, picks: readonly number[]): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < n; i++) {
    const word = (k: number) => WORDS[(picks[(i * 2 + k) % picks.length] ?? 0) % WORDS.length];
    out.push(new HumanMessage({ ...(i === 3 ? {} : { id: `h${i}` }), content: `Turn ${i}: ${word(0)} keep ${"the accounts straight ".repeat(1 + (i % 4))}${word(1)}.` }));
    out.push(new AIMessage({ id: `a${i}`, content: `Reply ${i}: ${word(1)} ${"as agreed ".repeat(1 + (i % 3))}` }));
  }
  return out;
}

/** Every excerpt of an evidence message, bucket by bucket. */
function entries(message: BaseMessage): { index: number }[] {
  const envelope = (JSON.parse(String(message.content)) as { contextview_evidence: Record<string, unknown> }).contextview_evidence;
  return Object.values(envelope).flatMap((value) => (Array.isArray(value) ? (value as { index: number }[]) : []));
}

async function evidenceOf(messages: readonly BaseMessage[]): Promise<BaseMessage> {
  const message = (await new InMemoryContextStore().update("u", "c", messages)).asMessage();
  if (message === null) throw new Error("expected evidence");
  return message;
}

describe("setAsideShown / restoreSetAside: evidence a record keeps beside the messages its view shows", () => {
  it("gives back the evidence byte for byte, whichever excerpts are set aside", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 14 }), fc.array(fc.nat(40), { minLength: 1, maxLength: 8 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }), async (n, picks, mask) => {
        const messages = [...chat(n, picks), new HumanMessage({ id: "q", content: "What did we decide?" })];
        const evidence = await evidenceOf(messages);
        const shown = (quoted: { index: number }) => mask[quoted.index % mask.length] === true;
        const split = setAsideShown(evidence, shown, messages);
        if (split === undefined) return;
        // What is kept is the evidence less what was set aside, and only shown messages are set aside.
        expect(entries(split.kept).length + split.aside.length).toBe(entries(evidence).length);
        expect(entries(split.kept).some((e) => split.aside.some((a) => a.index === e.index))).toBe(false);
        expect(split.aside.every((a) => shown(a))).toBe(true);
        const again = restoreSetAside(split.kept, split.aside, messages);
        expect(again?.content).toBe(evidence.content);
        expect(again?.id).toBe(evidence.id);
      }),
      { numRuns: 60 },
    );
  });

  it("keeps an excerpt it cannot make again: the quoted message changed, or the application wrote the evidence", async () => {
    const messages = [...chat(6, [0, 1, 2]), new HumanMessage({ id: "q", content: "And?" })];
    const evidence = await evidenceOf(messages);
    const everything = () => true;
    const whole = setAsideShown(evidence, everything, messages);
    expect(whole?.aside.length).toBeGreaterThan(1);
    // One quoted message edited since: its excerpt stays in what is kept, the others are set aside.
    const edited = [...messages];
    const at = whole?.aside[0]?.index as number;
    edited[at] = new HumanMessage({ id: messages[at]?.id as string, content: "Something else entirely, we must note." });
    const partly = setAsideShown(evidence, everything, edited);
    expect(partly?.aside.map((a) => a.index)).not.toContain(at);
    expect(partly?.aside.length).toBe((whole?.aside.length ?? 0) - 1);
    // Restored from the edited checkpoint, the content differs: the caller's hash check refuses it.
    expect(restoreSetAside(whole!.kept, whole!.aside, edited)?.content).not.toBe(evidence.content);
    // Evidence an application wrote in the envelope's shape, with excerpts of its own.
    const written = new AIMessage({
      content: JSON.stringify({ contextview_evidence: { cursor: 2, constraints: [{ role: "user", messageId: "h0", index: 0, excerpt: "my own words", truncated: false }], decisions: [], openWork: [], recentContext: [] } }),
    });
    expect(setAsideShown(written, everything, messages)).toBeUndefined();
    expect(setAsideShown(new AIMessage("not evidence"), everything, messages)).toBeUndefined();
  });
});
