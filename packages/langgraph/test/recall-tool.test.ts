import { createEstimator } from "@contextview/core";
import { RECALLED_LABEL } from "../../core/src/recall/index.js";
import { createRecallTool } from "@contextview/langgraph";
import { readAnswerPart } from "@contextview/test-support";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";

const estimator = createEstimator();
const transactions = Array.from({ length: 200 }, (_, i) => ({ id: `t${i + 1}`, date: `2024-03-${String((i % 28) + 1).padStart(2, "0")}`, amount: -(i + 1) * 1.25, memo: `Groceries at market ${i + 1}` }));
const issues = Array.from({ length: 30 }, (_, i) => ({ number: 4100 - i, title: `Issue ${4100 - i}`, labels: [{ name: "bug" }], body: "x".repeat(400) }));
const longText = Array.from({ length: 600 }, (_, i) => `Line ${i}: the rent invoice discussion continues with detail number ${i}.`).join("\n");

function conversation(): BaseMessage[] {
  return [
    new HumanMessage({ id: "u0", content: "Find my March transactions" }),
    new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "call_s", name: "search_transactions", args: { month: "2024-03" }, type: "tool_call" }] }),
    new ToolMessage({ id: "m2", tool_call_id: "call_s", name: "search_transactions", content: JSON.stringify({ query: "2024-03", count: 200, transactions }) }),
    new AIMessage({ id: "a3", content: "You have 200 transactions in March." }),
    new HumanMessage({ id: "u4", content: "And the open issues?" }),
    new AIMessage({ id: "a5", content: "", tool_calls: [{ id: "call_i", name: "list_issues", args: {}, type: "tool_call" }] }),
    // The content is a short summary the tool wrote; the artifact holds the rows.
    new ToolMessage({ id: "m6", tool_call_id: "call_i", name: "list_issues", content: JSON.stringify({ items: [{ number: 1, title: "not the artifact" }] }), artifact: { total_count: 30, items: issues } }),
    new AIMessage({ id: "a7", content: longText }),
    new HumanMessage({ id: "u8", content: "Thanks" }),
  ];
}

async function ask(args: Record<string, unknown>, options: Parameters<typeof createRecallTool>[0] = {}, messages = conversation()): Promise<string> {
  const recall = createRecallTool({ getMessages: () => messages, ...options });
  return String(await recall.invoke(args));
}

/** The rows of an answer: `{"row", "value"}` lines parsed. */
function rowsOf(text: string): Array<{ row: number; value?: unknown; json_part?: string; characters?: [number, number] }> {
  return text.split("\n").filter((line) => line.startsWith('{"row":')).map((line) => JSON.parse(line));
}

/** The arguments of the answer's "next" call, when it has one. */
function nextArgs(text: string): Record<string, unknown> | undefined {
  const match = /To (?:read on|read them), call `recall` with (\{.*\})\.\]$/m.exec(text);
  return match === null ? undefined : (JSON.parse(match[1]!) as Record<string, unknown>);
}

describe("createRecallTool", () => {
  it("labels every answer as untrusted history and names the message's role", async () => {
    const text = await ask({ action: "read", message: 0 });
    expect(text.split("\n")[0]).toBe(RECALLED_LABEL);
    expect(text).toContain("message 0 · role user · id u0 · characters 0-26 of 26, between the fences:\n```\nFind my March transactions\n```");
  });

  it("searches the conversation with its lexical index: index, role, id and a bounded excerpt", async () => {
    const text = await ask({ action: "search", query: "market 57" });
    const first = text.split("\n")[2]!;
    expect(first).toMatch(/^1\. message 2 · role tool · tool `search_transactions` · tool_call_id call_s · id m2 · score /);
    const excerpt = JSON.parse(text.split("\n")[3]!.trim()) as string;
    expect(excerpt.length).toBeLessThanOrEqual(242);
    expect(await ask({ action: "search", query: "the of" })).toMatch(/^Recall error: `query` needs/);
    expect(await ask({ action: "search", query: "zebra" })).toContain("No message of this conversation matches");
  });

  it("shows a long match's excerpt where a form of the word asked for is, a number only whole", async () => {
    const filler = "lorem ipsum dolor sit amet ".repeat(40);
    const messages = [
      new HumanMessage({ id: "u0", content: `${filler}Order 4200 shipped. ${filler}Her birthday party is on Sunday, order 42 too. ${filler}` }),
      new AIMessage({ id: "a1", content: "Noted." }),
      new HumanMessage({ id: "u2", content: "What did I tell you?" }),
    ];
    const excerpt = (query: string) => ask({ action: "search", query }, {}, messages).then((text) => JSON.parse(text.split("\n")[3]!.trim()) as string);
    expect(await excerpt("birthdays")).toContain("birthday party");
    expect(await excerpt("42")).toContain("order 42 too");
  });

  it("reads one message by index, id or tool_call_id, and a character range of it", async () => {
    expect(await ask({ action: "read", message: "a3" })).toContain("You have 200 transactions in March.");
    expect(await ask({ action: "read", message: "call_s", offset: 0, length: 20 })).toContain(`characters 0-20 of ${conversation()[2]!.content.length}, between the fences:\n\`\`\`\n${String(conversation()[2]!.content).slice(0, 20)}\n\`\`\``);
    const range = await ask({ action: "read", message: 7, offset: 100, length: 50 });
    expect(range).toContain(`characters 100-150 of ${longText.length}, between the fences:\n\`\`\`\n${longText.slice(100, 150)}\n\`\`\`\n`);
    expect(nextArgs(range)).toEqual({ action: "read", message: 7, offset: 150 });
    expect(await ask({ action: "read", message: 1 })).toContain('[tool call `search_transactions` (id call_s): {"month":"2024-03"}]');
  });

  it("pages a long message within maxToolResultTokens, to the end and never in a loop", async () => {
    let args: Record<string, unknown> | undefined = { action: "read", message: "a7" };
    let read = "";
    let calls = 0;
    while (args !== undefined) {
      const text = await ask(args, { maxToolResultTokens: 800 });
      expect(estimator.estimateText(text)).toBeLessThanOrEqual(800);
      const part = readAnswerPart(text)!;
      expect(part.from).toBe(read.length);
      read += part.text;
      args = nextArgs(text);
      calls++;
    }
    expect(read).toBe(longText);
    expect(calls).toBeGreaterThan(3);
  });

  it("reads rows by the ids an omitted_refs note printed, exactly as returned", async () => {
    const text = await ask({ action: "rows", message: "call_s", ids: ["t57", "t13", "t140"] });
    expect(rowsOf(text)).toEqual([
      { row: 57, value: transactions[56] },
      { row: 13, value: transactions[12] },
      { row: 140, value: transactions[139] },
    ]);
    expect(text).toContain("`transactions`: 200 rows, read from the content");
  });

  it("reads rows by row number and range, as the notice counts them", async () => {
    const text = await ask({ action: "rows", message: 2, rows: [13, "20-22"] });
    expect(rowsOf(text)).toEqual([13, 20, 21, 22].map((row) => ({ row, value: transactions[row - 1] })));
  });

  it("reads rows from the artifact when there is one, not from the content", async () => {
    const text = await ask({ action: "rows", message: "call_i", ids: [4080, 4099] });
    expect(text).toContain("`items`: 30 rows, read from the artifact");
    expect(rowsOf(text)).toEqual([
      { row: 21, value: issues[20] },
      { row: 2, value: issues[1] },
    ]);
  });

  it("reads a message by a long id as a recalled line shortens it, and says when several ids end so", async () => {
    const messages = [
      new HumanMessage({ id: "5f3c2a9e-1b7d-4c3e-9a2f-0e8d7c6b5a41", content: "The spare key is under the blue pot." }),
      new AIMessage({ id: "0a1b2c3d-0000-4000-8000-00000000aaaa", content: "Noted." }),
      new AIMessage({ id: "ffffffff-0000-4000-8000-00000000aaaa", content: "Noted again." }),
    ];
    expect(await ask({ action: "read", message: "…7c6b5a41" }, {}, messages)).toContain("message 0 · role user · id …7c6b5a41 · characters 0-36 of 36, between the fences:\n```\nThe spare key is under the blue pot.\n```");
    expect(await ask({ action: "read", message: "…0000aaaa" }, {}, messages)).toMatch(/^Recall error: the ids of messages 1, 2 all end "0000aaaa"; `message` takes an index or a whole id\./);
    // Only the shortened form: a bare tail is no reference.
    expect(await ask({ action: "read", message: "7c6b5a41" }, {}, messages)).toMatch(/^Recall error: no message 7c6b5a41 can be read;/);
  });

  it("says which references do not exist, as an error the model can read", async () => {
    const missing = await ask({ action: "rows", message: "call_s", ids: ["t999"] });
    expect(missing).toMatch(/^Recall error: message 2: Not found in `transactions` \(200 rows\): "t999"/);
    const partly = await ask({ action: "rows", message: "call_s", ids: ["t1", "nope"], rows: [500] });
    expect(rowsOf(partly)).toEqual([{ row: 1, value: transactions[0] }]);
    expect(partly).toContain('[Not found in `transactions` (200 rows): "nope"');
    expect(partly).toContain("[Not found: rows 500 — `transactions` has 200 rows.]");
    expect(await ask({ action: "read", message: "call_zz" })).toMatch(/^Recall error: no message call_zz can be read; `search` finds messages by their words\.$/);
    expect(await ask({ action: "read", message: 9 })).toMatch(/^Recall error: no message 9 can be read;/);
    expect(await ask({ action: "rows", message: 3, rows: [1] })).toMatch(/^Recall error: message 3 is not a tool result/);
    expect(await ask({ action: "rows", message: 2, collection: "payees", rows: [1] })).toMatch(/^Recall error: no array payees in this result; it has `transactions` \(200 rows\)/);

    const recall = createRecallTool({ getMessages: () => conversation() });
    const result = (await recall.invoke({ id: "c9", name: "recall", args: { action: "read", message: 42 }, type: "tool_call" })) as ToolMessage;
    expect(result).toBeInstanceOf(ToolMessage);
    expect(result.status).toBe("error");
    expect(result.tool_call_id).toBe("c9");
  });

  it("pages many rows within the bound, each row once, following the exact next call", async () => {
    let args: Record<string, unknown> | undefined = { action: "rows", message: "call_s", rows: ["1-200"] };
    const seen: unknown[] = [];
    let calls = 0;
    while (args !== undefined) {
      const text = await ask(args, { maxToolResultTokens: 600 });
      expect(estimator.estimateText(text)).toBeLessThanOrEqual(600);
      for (const row of rowsOf(text)) seen.push(row.value);
      args = nextArgs(text);
      calls++;
    }
    expect(seen).toEqual(transactions);
    expect(calls).toBeGreaterThan(5);
  });

  it("pages one row longer than an answer by characters of its JSON", async () => {
    const huge = { id: "big", text: "y".repeat(5000) };
    const messages = [
      new HumanMessage("go"),
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "fetch", args: {}, type: "tool_call" }] }),
      new ToolMessage({ tool_call_id: "c1", name: "fetch", content: JSON.stringify({ rows: [huge, { id: "small" }] }) }),
    ];
    let args: Record<string, unknown> | undefined = { action: "rows", message: "c1", ids: ["big", "small"] };
    let json = "";
    const whole: unknown[] = [];
    while (args !== undefined) {
      const text = await ask(args, { maxToolResultTokens: 400 }, messages);
      expect(estimator.estimateText(text)).toBeLessThanOrEqual(400);
      for (const row of rowsOf(text)) {
        if (row.json_part !== undefined) {
          expect(row.characters![0]).toBe(json.length);
          json += row.json_part;
        } else whole.push(row.value);
      }
      args = nextArgs(text);
    }
    expect(JSON.parse(json)).toEqual(huge);
    expect(whole).toEqual([{ id: "small" }]);
  });

  it("is named as configured and rejects a bound it cannot keep", () => {
    expect(createRecallTool({ toolName: "history", getMessages: () => [] }).name).toBe("history");
    expect(() => createRecallTool({ maxToolResultTokens: 50 })).toThrow("Expected `maxToolResultTokens` to be an integer of at least 200, got 50");
  });
});
