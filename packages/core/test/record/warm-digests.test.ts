import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { readMessagesHash, warmMessageDigests } from "../../src/record/hash";
import { clearRememberedHashes } from "../../src/remembered-hash";

/** A conversation with one large tool result (6 MB of text with multibyte characters, `lines` lines) among small messages. */
function conversation(lines = 250_000) {
  const big = `${"Ünïcødé 😀 result line\n".repeat(lines)}end`;
  return [
    new HumanMessage({ id: "h1", content: "find it" }),
    new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "search", args: { q: "it" } }] }),
    new ToolMessage({ id: "t1", tool_call_id: "c1", content: big }),
    new AIMessage({ id: "a2", content: "found" }),
  ];
}

describe("warmMessageDigests", () => {
  // A text hashed once is not hashed again (remembered-hash.ts): each test hashes it afresh.
  beforeEach(() => clearRememberedHashes());

  it("makes the digests readMessagesHash makes at once", async () => {
    const cold = readMessagesHash(conversation(), 0, 0, 4);
    const messages = conversation();
    await warmMessageDigests(messages, [0, 1, 2, 3]);
    expect(readMessagesHash(messages, 0, 0, 4)).toBe(cold);
  });

  it("lets the event loop run while it hashes a large message", async () => {
    // 24 MB: node:crypto hashes 6 MB within a slice or two.
    const messages = conversation(1_000_000);
    let turns = 0;
    let running = true;
    const tick = () => {
      turns++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    await warmMessageDigests(messages, [2]);
    running = false;
    expect(turns).toBeGreaterThan(3);
  });
});
