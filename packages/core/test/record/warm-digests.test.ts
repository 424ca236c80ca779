import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { readMessagesHash, warmMessageDigests } from "../../src/record/hash";
import { clearRememberedHashes } from "../../src/remembered-hash";

/** A conversation with one large tool result (6 MB of text with multibyte characters) among small messages. */
function conversation() {
  const big = `${"Ünïcødé 😀 result line\n".repeat(250_000)}end`;
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
    const messages = conversation();
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
