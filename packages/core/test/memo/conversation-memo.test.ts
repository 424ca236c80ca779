import { ContextViewError } from "@contextview/core";
import { ConversationMemo, prefixFingerprint, sameFingerprint } from "@contextview/core/internal";
import { conversationMapKey } from "@contextview/core/store";
import { HumanMessage } from "@langchain/core/messages";
import fc from "fast-check";

const key = (conversationId: string, userId = "u") => ({ userId, conversationId });

describe("ConversationMemo", () => {
  it("forgets the least recently used conversation beyond its capacity", () => {
    const memo = new ConversationMemo<number>(2);
    memo.set(key("a"), 1);
    memo.set(key("b"), 2);
    expect(memo.get(key("a"))).toBe(1); // a is now the most recently used
    memo.set(key("c"), 3);
    expect(memo.size).toBe(2);
    expect(memo.get(key("b"))).toBeUndefined();
    expect(memo.get(key("a"))).toBe(1);
    expect(memo.get(key("c"))).toBe(3);
  });

  it("keeps users apart even when their ids concatenate alike", () => {
    const memo = new ConversationMemo<string>();
    memo.set({ userId: "ab", conversationId: "c" }, "first");
    memo.set({ userId: "a", conversationId: "bc" }, "second");
    expect(memo.get({ userId: "ab", conversationId: "c" })).toBe("first");
    expect(memo.size).toBe(2);
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses a capacity of %p with a typed error", (capacity) => {
    expect(() => new ConversationMemo(capacity)).toThrow(ContextViewError);
  });
});

describe("conversationMapKey", () => {
  it("gives two conversations the same map key only when both parts are equal", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), fc.string(), (u1, c1, u2, c2) => {
        const same = conversationMapKey({ userId: u1, conversationId: c1 }) === conversationMapKey({ userId: u2, conversationId: c2 });
        expect(same).toBe(u1 === u2 && c1 === c2);
      }),
    );
    expect(conversationMapKey({ userId: "a:1", conversationId: "b" })).not.toBe(conversationMapKey({ userId: "a", conversationId: ":1b" }));
  });
});

describe("prefixFingerprint", () => {
  const messages = Array.from({ length: 5 }, (_, i) => new HumanMessage({ id: `m${i}`, content: `message ${i}` }));

  it("is the same for the same objects, whatever follows the prefix", () => {
    expect(sameFingerprint(prefixFingerprint(messages, 4), prefixFingerprint([...messages.slice(0, 4), new HumanMessage("later")], 4))).toBe(true);
  });

  it("differs for an equal-looking copy, a reordering or another length", () => {
    const copy = messages.map((m) => new HumanMessage({ id: m.id as string, content: m.content }));
    const swapped = [messages[1], messages[0], ...messages.slice(2)];
    expect(sameFingerprint(prefixFingerprint(messages, 5), prefixFingerprint(copy, 5))).toBe(false);
    expect(sameFingerprint(prefixFingerprint(messages, 5), prefixFingerprint(swapped, 5))).toBe(false);
    expect(sameFingerprint(prefixFingerprint(messages, 5), prefixFingerprint(messages, 4))).toBe(false);
    expect(sameFingerprint(undefined, prefixFingerprint(messages, 4))).toBe(false);
  });

  it("holds no message: the fingerprint is three numbers", () => {
    const fingerprint = prefixFingerprint(messages, 5);
    expect(Object.values(fingerprint).every((value) => typeof value === "number")).toBe(true);
  });
});
