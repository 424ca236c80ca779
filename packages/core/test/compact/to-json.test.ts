import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { buildContext, ContextViewError } from "@contextview/core";
import { compactToolResult } from "@contextview/core/tool-results";
import { readPayloadAsJson } from "../../src/compact/inspect.js";
import { textOf } from "../../src/messages.js";
import { contentJson } from "./laws.js";

const limits = { maxDepth: 200, maxNodes: 20_000_000 };
const SECRET = "sk-live-4eC39HqLyjWDarjtT1zdp7dc";

/** An account as an SDK would return it: a class whose JSON leaves the token out. */
class Account {
  constructor(
    readonly id: string,
    readonly owner: string,
    readonly accessToken: string,
    readonly balance: Money,
  ) {}
  toJSON(): Record<string, unknown> {
    return { id: this.id, owner: this.owner, balance: this.balance };
  }
}

/** A money object whose JSON is its display string, not its fields. */
class Money {
  constructor(
    readonly cents: number,
    readonly currency: string,
  ) {}
  toJSON(): string {
    return `${(this.cents / 100).toFixed(2)} ${this.currency}`;
  }
}

const accounts = (n: number) => Array.from({ length: n }, (_, i) => new Account(`acct_${i}`, `Owner number ${i} with a fairly long display name`, `${SECRET}${i}`, new Money(1250 + i, "EUR")));

const toolResult = (artifact: unknown, content = JSON.stringify(artifact)) => new ToolMessage({ content, tool_call_id: "call-1", name: "list_accounts", artifact });

describe("compaction reads values as JSON.stringify would", () => {
  it("never shows what an artifact's toJSON hides (compactToolResult)", () => {
    const artifact = { accounts: accounts(200) };
    const message = toolResult(artifact);
    expect(textOf(message.content)).not.toContain("sk-live");
    const out = compactToolResult(message, 1500);
    const text = textOf(out.content);
    expect(text).not.toContain("sk-live");
    expect(text).not.toContain("accessToken");
    const json = contentJson(out) as { accounts: { rows: Array<Record<string, unknown>>; omitted: number } };
    expect(json.accounts.rows[0]).toEqual({ id: "acct_0", owner: "Owner number 0 with a fairly long display name", balance: "12.50 EUR" });
    expect(json.accounts.omitted).toBeGreaterThan(0);
  });

  it("never shows the token in a view built by buildContext", () => {
    const artifact = { accounts: accounts(400) };
    const messages = [
      new HumanMessage({ id: "h1", content: "List my accounts." }),
      new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "call-1", name: "list_accounts", args: {}, type: "tool_call" }] }),
      toolResult(artifact),
    ];
    const { messages: view, report } = buildContext({ messages, budget: { promptBudget: 4000 } });
    expect(report.toolResults.compacted).toBe(1);
    expect(JSON.stringify(view.map((m) => m.content))).not.toContain("sk-live");
  });

  it("reads money-like objects, dates and boxed primitives as their JSON at every depth", () => {
    const artifact = {
      rows: Array.from({ length: 80 }, (_, i) => ({ id: i, price: new Money(999 + i, "USD"), at: new Date(Date.UTC(2024, 0, 1 + i)), tag: new String("t"), n: new Number(i), ok: new Boolean(true), note: "n".repeat(200) })),
    };
    const out = contentJson(compactToolResult(toolResult(artifact), 900)) as { rows: { rows: Array<Record<string, unknown>> } };
    expect(out.rows.rows[1]).toMatchObject({ id: 1, price: "10.00 USD", at: "2024-01-02T00:00:00.000Z", tag: "t", n: 1, ok: true });
  });

  it("reads `model_context` from what the artifact's own toJSON returns, and passes toJSON the key", () => {
    const keys: string[] = [];
    const artifact = {
      raw: "x".repeat(20000),
      toJSON(key: string) {
        keys.push(key);
        return { model_context: { rows: [{ id: 1, when: { toJSON: (k: string) => `key=${k}` } }] }, raw: this.raw };
      },
    };
    const out = compactToolResult(toolResult(artifact, "x".repeat(20000)), 500);
    expect(contentJson(out)).toEqual({ rows: [{ id: 1, when: "key=when" }] });
    expect(keys).toEqual([""]);
  });

  it("refuses a throwing toJSON with INVALID_TOOL_RESULT naming the path", () => {
    const artifact = { rows: [{ id: 1, secret: { toJSON: () => { throw new Error("no"); } } }], pad: "p".repeat(20000) };
    let error: unknown;
    try {
      compactToolResult(toolResult(artifact, "p".repeat(20000)), 500);
    } catch (caught) {
      error = caught;
    }
    expect(ContextViewError.isInstance(error) && (error as ContextViewError).code).toBe("INVALID_TOOL_RESULT");
    expect((error as Error).message).toContain("$.rows[0].secret");
  });

  it("gives what JSON.stringify gives for random values with toJSON, dates, undefined and functions (property)", () => {
    const leaf = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.constant(() => 1),
      fc.integer({ min: 0, max: 2e12 }).map((t) => new Date(t)),
      fc.integer().map((n) => new Number(n)),
    );
    const tree = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        leaf,
        fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(fc.string({ maxLength: 4 }), tie("node"), { maxKeys: 4 }),
        tie("node").map((inner) => ({ hidden: "secret", toJSON: () => inner })),
      ),
    })).node;
    fc.assert(
      fc.property(tree, (value) => {
        const expected = JSON.stringify(value);
        const read = readPayloadAsJson(value, "artifact", limits);
        expect(JSON.stringify(read)).toBe(expected);
      }),
      { numRuns: 300, plugins: [fc.interruptAfterTimeLimit(20_000, { failOnInterrupt: true })] },
    );
  });

  it("returns plain data as the same objects (no copy)", () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ id: i, tags: ["a", "b"], nested: { x: i } }));
    const payload = { rows };
    expect(readPayloadAsJson(payload, "artifact", limits)).toBe(payload);
  });
});
