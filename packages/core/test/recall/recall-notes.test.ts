// With a recall tool bound, every note of what the view left out names the recall call
// that brings it back, and that call, run on the conversation, returns exactly it.
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator } from "@contextview/core";
import { compactOrNarrow, compactToolResult, microCompact } from "@contextview/core/tool-results";
import { recallFromConversation, type RecallRequest } from "@contextview/core/internal";
import { recallToolNameIn } from "../../src/recall/index.js";
import { readAnswerPart, viewProblems } from "@contextview/test-support";

const estimator = createEstimator();
const ROWS = Array.from({ length: 200 }, (_, i) => ({ id: `tx-${1000 + i}`, date: `2024-03-${String((i % 28) + 1).padStart(2, "0")}`, amount: -(i + 1) * 1.25, memo: `Groceries at market ${i}` }));
/** The recall tool's schema as a provider receives it (what `createRecallTool` converts to). */
const recallSchema = (name = "recall") => ({
  type: "function",
  function: { name, description: "Read back earlier parts of this conversation.", parameters: { type: "object", properties: { action: { type: "string", enum: ["search", "read", "rows"] }, message: { type: ["string", "number"] } }, required: ["action"] } },
});
const searchSchema = { type: "function", function: { name: "search_transactions", description: "Search transactions.", parameters: { type: "object", properties: { month: { type: "string" } } } } };

function searchTurn(): BaseMessage[] {
  return [
    new HumanMessage({ id: "u0", content: "Find my March transactions" }),
    new AIMessage({ id: "a0", content: "", tool_calls: [{ id: "call_s", name: "search_transactions", args: { month: "2024-03" }, type: "tool_call" }] }),
    new ToolMessage({ id: "t0", tool_call_id: "call_s", name: "search_transactions", content: JSON.stringify({ query: "2024-03", count: ROWS.length, transactions: ROWS }) }),
    new AIMessage({ id: "r0", content: "You have 200 transactions in March." }),
  ];
}

function laterTurns(from: number, n: number): BaseMessage[] {
  return Array.from({ length: n }, (_, k) => [
    new HumanMessage({ id: `u${from + k}`, content: `Turn ${from + k}: what should I budget for groceries next month? Please think it through.` }),
    new AIMessage({ id: `r${from + k}`, content: `For turn ${from + k}, plan about 400 for groceries, ${"and keep a small reserve for weekly market visits ".repeat(6)}` }),
  ]).flat();
}

/** Every recall call a text names: `call \`recall\` with {…}` parsed. */
function recallCalls(text: string, tool = "recall"): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  const marker = `call \`${tool}\` with `;
  for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + 1)) {
    let depth = 0;
    const start = at + marker.length;
    for (let i = start; i < text.length; i++) {
      if (text[i] === "{") depth++;
      else if (text[i] === "}" && --depth === 0) {
        out.push(JSON.parse(text.slice(start, i + 1)) as Record<string, unknown>);
        break;
      }
    }
  }
  return out;
}

function rowsOf(text: string): Array<{ row: number; value: unknown }> {
  return text.split("\n").filter((line) => line.startsWith('{"row":')).map((line) => JSON.parse(line) as { row: number; value: unknown });
}

function recall(messages: readonly BaseMessage[], args: Record<string, unknown>, maxToolResultTokens = 2000): string {
  const answer = recallFromConversation(messages, args as unknown as RecallRequest, { maxToolResultTokens });
  expect(answer.error).toBe(false);
  expect(estimator.estimateText(answer.text)).toBeLessThanOrEqual(maxToolResultTokens);
  return answer.text;
}

function textOf(message: BaseMessage | undefined): string {
  return typeof message?.content === "string" ? message.content : JSON.stringify(message?.content);
}

describe("recallToolNameIn", () => {
  it("finds the recall tool by its actions, under any name, in the shapes providers take", () => {
    expect(recallToolNameIn([searchSchema, recallSchema()])).toBe("recall");
    expect(recallToolNameIn([recallSchema("history")])).toBe("history");
    expect(recallToolNameIn([{ name: "history", input_schema: recallSchema().function.parameters }])).toBe("history");
    expect(recallToolNameIn([searchSchema])).toBeUndefined();
    expect(recallToolNameIn(undefined)).toBeUndefined();
    const other = recallSchema("recall");
    other.function.parameters.properties.action.enum = ["search", "read"];
    expect(recallToolNameIn([other])).toBeUndefined();
  });
});

describe("compaction notes with a recall tool bound", () => {
  it("a cleared 200-row result names a recall call whose rows are the original ones; every row is one more call away", () => {
    const messages = [...searchTurn(), ...laterTurns(1, 1)];
    const plain = microCompact(messages, { keepRecentToolResults: 0 });
    expect(textOf(plain.messages[2])).toMatch(/call the tool again if you need it\.\]$/);

    const { messages: shown } = microCompact(messages, { keepRecentToolResults: 0, recallToolName: "recall" });
    const notice = textOf(shown[2]);
    expect(notice).not.toContain("call the tool again");
    const [call] = recallCalls(notice);
    expect(call).toEqual({ action: "rows", message: "call_s", rows: ["1-20"] });
    const first = recall(messages, call!);
    expect(rowsOf(first)).toEqual(ROWS.slice(0, 20).map((value, i) => ({ row: i + 1, value })));
    // The answer counts the rows, so any one of them is the second call.
    expect(first).toContain("`transactions`: 200 rows");
    for (const row of [21, 150, 200]) expect(rowsOf(recall(messages, { action: "rows", message: "call_s", rows: [row] }))).toEqual([{ row, value: ROWS[row - 1] }]);
  });

  it("a result that is not JSON is read back as text", () => {
    const messages = [new HumanMessage("go"), new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "fetch", args: {}, type: "tool_call" }] }), new ToolMessage({ tool_call_id: "c1", name: "fetch", content: "plain text ".repeat(50) })];
    const notice = textOf(microCompact(messages, { keepRecentToolResults: 0, recallToolName: "history" }).messages[2]);
    expect(recallCalls(notice, "history")).toEqual([{ action: "read", message: "c1" }]);
    // An artifact without rows (a note; its model_context is the tool's own projection): read too.
    const note = new ToolMessage({ tool_call_id: "c2", name: "read_note", content: '{"path":"budget.md","text":"…"}', artifact: { path: "budget.md", markdown: "# Budget", model_context: { headings: ["L1 # Budget"] } } });
    const noteNotice = textOf(microCompact([messages[0]!, new AIMessage({ content: "", tool_calls: [{ id: "c2", name: "read_note", args: {}, type: "tool_call" }] }), note], { keepRecentToolResults: 0, recallToolName: "recall" }).messages[2]);
    expect(recallCalls(noteNotice)).toEqual([{ action: "read", message: "c2" }]);
  });

  it("a shortened collection's note names the rows it left out, within the limit, and re-compacting keeps one note", () => {
    const message = searchTurn()[2] as ToolMessage;
    const plain = compactToolResult(message, 1500);
    expect(JSON.parse(textOf(plain))).not.toHaveProperty("$recall");
    const compact = compactToolResult(message, 1500, { recallToolName: "recall" });
    expect(estimator.estimateText(textOf(compact))).toBeLessThanOrEqual(1500);
    const payload = JSON.parse(textOf(compact)) as { $recall: string; transactions: { retained: number; omitted_refs?: { fields: string[]; rows: unknown[][] }; omitted_ids?: { field: string; ids: string[] } } };
    expect(Object.keys(payload)[0]).toBe("$recall");
    const { retained } = payload.transactions;
    const [call] = recallCalls(payload.$recall);
    expect(call).toEqual({ action: "rows", message: "call_s", collection: "transactions", rows: [`${retained + 1}-200`] });
    expect(payload.$recall).toMatch(/, or with "ids" from omitted_(refs|ids)\.$/);
    // By the printed row numbers (paging on as the answers say) and by the printed ids: exactly the omitted rows.
    const messages = searchTurn();
    const seen: Array<{ row: number; value: unknown }> = [];
    let args: Record<string, unknown> | undefined = call;
    while (args !== undefined) {
      const text = recall(messages, args);
      seen.push(...rowsOf(text));
      args = /\[Not shown yet: .*?(call `recall` with \{.*\})\.\]$/m.test(text) ? recallCalls(text.slice(text.lastIndexOf("[Not shown yet")))[0] : undefined;
    }
    expect(seen).toEqual(ROWS.slice(retained).map((value, i) => ({ row: retained + 1 + i, value })));
    const { omitted_refs: refs, omitted_ids: printed } = payload.transactions;
    const ids = refs !== undefined ? refs.rows.slice(0, 5).map((row) => row[refs.fields.indexOf("id")] as string) : printed!.ids.slice(-5);
    expect(rowsOf(recall(messages, { action: "rows", message: "call_s", ids })).map((r) => r.value)).toEqual(ids.map((id) => ROWS.find((r) => r.id === id)));

    const again = compactToolResult(compact, 1200, { recallToolName: "recall" });
    const text = textOf(again);
    expect(estimator.estimateText(text)).toBeLessThanOrEqual(1200);
    expect(text.split('"$recall"')).toHaveLength(2);
    expect(recallCalls((JSON.parse(text) as { $recall: string }).$recall)[0]!["rows"]).toEqual([`${(JSON.parse(text) as { transactions: { retained: number } }).transactions.retained + 1}-200`]);
  });

  it("a result narrowed to its totals names the rows to read, within its limit", () => {
    const message = searchTurn()[2] as ToolMessage;
    const plain = compactOrNarrow(message, 120);
    expect(plain.outcome).toBe("narrowed");
    expect(textOf(plain.message)).not.toContain("$recall");
    const { message: narrowed, outcome } = compactOrNarrow(message, 120, { recallToolName: "recall" });
    expect(outcome).toBe("narrowed");
    const text = textOf(narrowed);
    expect(estimator.estimateText(text)).toBeLessThanOrEqual(120);
    const [call] = recallCalls((JSON.parse(text) as { $recall: string }).$recall);
    expect(call).toEqual({ action: "rows", message: "call_s", collection: "transactions", rows: ["1-200"] });
    expect(rowsOf(recall(searchTurn(), { ...call!, rows: [200] }))).toEqual([{ row: 200, value: ROWS[199] }]);
  });

  it("buildContext finds the bound recall tool: older results name it, the view stays within its limit; without it the notes are today's", () => {
    const messages = [...searchTurn(), ...laterTurns(1, 4), new HumanMessage({ id: "q", content: "And the totals?" })];
    const budget = { promptBudget: 3000 };
    const without = buildContext({ messages, tools: [searchSchema], budget, keepRecentToolResults: 0, clearStep: 1 });
    expect(without.messages.map(textOf).join("\n")).toContain("call the tool again if you need it.]");
    const view = buildContext({ messages, tools: [searchSchema, recallSchema()], budget, keepRecentToolResults: 0, clearStep: 1 });
    expect(viewProblems({ conversation: messages }, view)).toEqual([]);
    expect(view.report.tokens.tools).toBe(estimator.estimateTools([searchSchema, recallSchema()]));
    const cleared = view.messages.find((m) => m.type === "tool");
    expect(textOf(cleared)).not.toContain("call the tool again");
    expect(recallCalls(textOf(cleared))).toEqual([{ action: "rows", message: "call_s", rows: ["1-20"] }]);
  });

  it("a dropped turn's excerpt gives its message numbers, and reading one returns that message", () => {
    const messages = [...searchTurn(), ...laterTurns(1, 30), new HumanMessage({ id: "q", content: "What did we say at the start?" })];
    const budget = { promptBudget: 2500 };
    // Recall off: with a relevance reserve the recalled block takes the excerpts' room.
    const recallBudget = 0;
    const plain = buildContext({ messages, tools: [searchSchema], budget, recallBudget });
    const plainHead = plain.messages.map(textOf).find((text) => text.startsWith("Excerpts of earlier turns"))!;
    expect(plainHead).not.toMatch(/\(#\d+\)/);
    expect(viewProblems({ conversation: messages }, plain)).toEqual([]);
    const view = buildContext({ messages, tools: [searchSchema, recallSchema()], budget, recallBudget });
    expect(viewProblems({ conversation: messages }, view)).toEqual([]);
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
    const head = view.messages.map(textOf).find((text) => text.startsWith("Excerpts of earlier turns"))!;
    expect(head).toContain('call `recall` with {"action":"read","message":<its #>}');
    const numbered = [...head.matchAll(/^(user|assistant) \(#(\d+)\): (.*)$/gm)];
    expect(numbered.length).toBeGreaterThan(1);
    for (const [, role, index, excerpt] of numbered) {
      const text = recall(messages, { action: "read", message: Number(index) });
      expect(text).toContain(`message ${index} · role ${role}`);
      expect(text).toContain(excerpt!.replace(/…$/, "").slice(0, 60));
    }
  });

  it("a summary or evidence head says how to find the turns it stands for", () => {
    const messages = [...searchTurn(), ...laterTurns(1, 30), new HumanMessage({ id: "q", content: "What did we say at the start?" })];
    const historyMessage = new AIMessage("Evidence: the user asked for March transactions (200 rows).");
    const view = buildContext({ messages, tools: [recallSchema("history")], budget: { promptBudget: 2500 }, historyMessage });
    const head = view.messages.map(textOf).find((text) => text.startsWith("Evidence:"))!;
    expect(recallCalls(head, "history")).toEqual([{ action: "search", query: "<words>" }]);
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
    const plain = buildContext({ messages, budget: { promptBudget: 2500 }, historyMessage });
    expect(plain.messages.map(textOf)).toContain("Evidence: the user asked for March transactions (200 rows).");
  });
});

describe("text excerpts with a recall tool bound", () => {
  const original = Array.from({ length: 800 }, (_, i) => `line ${i}: the build log says step ${i} finished`).join("\n");
  const messages = [new HumanMessage("go"), new AIMessage({ content: "", tool_calls: [{ id: "c_log", name: "read_log", args: {}, type: "tool_call" }] }), new ToolMessage({ id: "t_log", tool_call_id: "c_log", name: "read_log", content: original })];

  /** The characters a read returned: what follows its range line, up to the next note or the end. */
  function readBack(args: Record<string, unknown>, maxToolResultTokens: number): { text: string; next: Record<string, unknown> | undefined } {
    const answer = recall(messages, args, maxToolResultTokens);
    expect(answer).toMatch(/^message 2 · .* · characters \d+-\d+ of \d+, between the fences:$/m);
    const { text } = readAnswerPart(answer)!;
    const rest = answer.slice(answer.lastIndexOf("```") + 3);
    return { text, next: rest.includes("To read on") ? recallCalls(rest)[0] : undefined };
  }

  it("the middle marker names the read of exactly the omitted characters, within the limit", () => {
    expect(textOf(compactToolResult(messages[2]!, 400))).toContain("ask the tool for a narrower part");
    const compact = compactToolResult(messages[2]!, 400, { recallToolName: "recall" });
    const text = textOf(compact);
    expect(estimator.estimateText(text)).toBeLessThanOrEqual(400);
    const calls = recallCalls(text);
    expect(calls).toHaveLength(1);
    const { offset, length } = calls[0] as { offset: number; length: number };
    expect(calls[0]).toEqual({ action: "read", message: "c_log", offset, length });
    // The shown beginning and end around the named range are the original.
    expect(text).toContain(`\n${original.slice(0, offset)}\n[… ${length} characters omitted (characters ${offset}-${offset + length} of ${original.length})`);
    expect(text.endsWith(`\n${original.slice(offset + length)}\n[End of tool result]`)).toBe(true);
    // One answer large enough returns exactly the omitted text; at the default bound the answers page on to the same text.
    // (The answer still says where the rest of the message goes on: after the range.)
    expect(readBack(calls[0]!, 20_000)).toEqual({ text: original.slice(offset, offset + length), next: { action: "read", message: "c_log", offset: offset + length } });
    let paged = "";
    let args: Record<string, unknown> | undefined = calls[0];
    while (args !== undefined) {
      const part = readBack(args, 2000);
      paged += part.text;
      const at = part.next?.["offset"] as number | undefined;
      args = at === undefined || at >= offset + length ? undefined : { ...part.next, length: offset + length - at };
    }
    expect(paged).toBe(original.slice(offset, offset + length));
  });

  it("compacting an excerpt again cuts it further with one marker, named again or not", () => {
    const compact = compactToolResult(messages[2]!, 400, { recallToolName: "recall" });
    const again = compactToolResult(compact, 250, { recallToolName: "recall" });
    const text = textOf(again);
    expect(estimator.estimateText(text)).toBeLessThanOrEqual(250);
    expect(text.split("characters omitted")).toHaveLength(2);
    const [call] = recallCalls(text) as Array<{ offset: number; length: number }>;
    expect(call!.length).toBeGreaterThan((recallCalls(textOf(compact))[0] as { length: number }).length);
    expect(readBack(call as unknown as Record<string, unknown>, 20_000).text).toBe(original.slice(call!.offset, call!.offset + call!.length));
    const unbound = textOf(compactToolResult(compact, 250));
    expect(unbound.split("characters omitted")).toHaveLength(2);
    expect(recallCalls(unbound)).toEqual([]);
    // Through microCompact twice (a later view re-reading the earlier one): still one marker.
    const first = microCompact(messages, { maxToolResultTokens: 400, recallToolName: "recall" }).messages;
    const second = microCompact(first, { maxToolResultTokens: 300, recallToolName: "recall" }).messages;
    expect(textOf(second[2]).split("To read them")).toHaveLength(2);
  });
});

describe("collections nested in rows, with a recall tool bound", () => {
  const orders = Array.from({ length: 30 }, (_, i) => ({ id: `o-${i}`, lines: Array.from({ length: 40 }, (_, j) => ({ sku: `s-${i}-${j}`, qty: j })) }));
  const message = new ToolMessage({ tool_call_id: "c_orders", name: "list_orders", content: JSON.stringify({ data: { orders } }) });

  /** Every row a compacted payload left out — outer and nested — read with the calls its `$recall` names: at most 2 calls each. */
  function readEveryOmittedRow(compacted: ToolMessage, limit: number): void {
    const text = textOf(compacted);
    expect(estimator.estimateText(text)).toBeLessThanOrEqual(limit);
    const note = (JSON.parse(text) as { $recall: string }).$recall;
    const [call] = recallCalls(note);
    expect(call).toMatchObject({ action: "rows", message: "c_orders", collection: "data.orders" });
    expect(note).toContain('"data.orders.<n>.lines" in `collection` (<n>: a row\'s position from 0)');
    const node = (JSON.parse(text) as { data: { orders: { retained: number; rows: Array<{ lines: { retained?: number } | unknown[] }> } } }).data.orders;
    // Omitted orders: the printed call, then any one row by its number.
    expect(rowsOf(recall([message], { ...call!, rows: [node.retained + 1] }))).toEqual([{ row: node.retained + 1, value: orders[node.retained] }]);
    // Lines left out inside every order, kept or omitted: one call by the pattern, with the rows the notice counts (kept rows) or all of them.
    orders.forEach((order, i) => {
      const kept = node.rows[i]?.lines;
      const from = kept === undefined ? 1 : Array.isArray(kept) ? 41 : (kept.retained ?? 40) + 1;
      if (from > 40) return;
      const answer = recall([message], { action: "rows", message: "c_orders", collection: `data.orders.${i}.lines`, rows: [`${from}-40`] });
      expect(rowsOf(answer)).toEqual(order.lines.slice(from - 1).map((value, k) => ({ row: from + k, value })));
    });
  }

  it("a shortened array inside kept rows is named by its path, and recall reads it there", () => {
    const compacted = compactToolResult(message, 1400, { recallToolName: "recall" });
    expect(textOf(compacted)).toContain('"lines":{"$compacted":"rows"');
    readEveryOmittedRow(compacted, 1400);
  });

  it("after a second pass the arrays inside omitted rows (nested_omissions) are reached the same way", () => {
    const first = compactToolResult(message, 1400, { recallToolName: "recall" });
    const again = compactToolResult(first, 700, { recallToolName: "recall" });
    expect(textOf(again)).toContain('"nested_omissions"');
    readEveryOmittedRow(again, 700);
  });

  it("a path that names no array is a clear error listing the arrays", () => {
    const answer = recallFromConversation([message], { action: "rows", message: "c_orders", collection: "data.orders.99.lines", rows: [1] });
    expect(answer.error).toBe(true);
    expect(answer.text).toContain("no array data.orders.99.lines in this result");
  });
});

describe("a small result of several arrays, at limits just above its smallest form", () => {
  const reservation = {
    reservation_id: "R7Q2LX",
    user_id: "mia_lee_1024",
    origin: "SEA",
    destination: "SEA",
    flight_type: "round_trip",
    cabin: "economy",
    flights: [
      { origin: "SEA", destination: "DEN", flight_number: "HAT041", date: "2024-05-18", price: 182 },
      { origin: "DEN", destination: "BOS", flight_number: "HAT219", date: "2024-05-18", price: 156 },
      { origin: "BOS", destination: "DEN", flight_number: "HAT077", date: "2024-05-22", price: 171 },
      { origin: "DEN", destination: "SEA", flight_number: "HAT305", date: "2024-05-23", price: 149 },
    ],
    passengers: [
      { first_name: "Mia", last_name: "Lee", dob: "1987-02-11" },
      { first_name: "Noah", last_name: "Lee", dob: "1985-09-30" },
      { first_name: "Ava", last_name: "Lee", dob: "2015-06-04" },
    ],
    payment_history: [{ payment_id: "credit_card_5521", amount: 1316 }],
    created_at: "2024-05-01T11:03:53",
    total_baggages: 2,
    nonfree_baggages: 0,
    insurance: "yes",
  };
  const message = new ToolMessage({ tool_call_id: "call_res", name: "get_reservation_details", content: JSON.stringify(reservation, null, 2) });
  const messages = [new HumanMessage("my reservation?"), new AIMessage({ content: "", tool_calls: [{ id: "call_res", name: "get_reservation_details", args: {}, type: "tool_call" }] }), message];
  const compacts = (limit: number): boolean => {
    try {
      compactToolResult(message, limit);
      return true;
    } catch {
      return false;
    }
  };

  /** Row `n` of the array at `path`, got by following the note's call: the value and the recall calls it took. */
  function rowBack(call: Record<string, unknown>, note: string, path: string, n: number): { value: unknown; calls: number } {
    if (call["action"] === "read") {
      // The whole result's text, paged on as the answers say.
      let text = "";
      let calls = 0;
      let args: Record<string, unknown> | undefined = call;
      while (args !== undefined) {
        const answer = recall(messages, args);
        calls++;
        text += readAnswerPart(answer)!.text;
        args = /\[Characters \d+-\d+ not shown\./.test(answer) ? recallCalls(answer.slice(answer.lastIndexOf("[Characters")))[0] : undefined;
      }
      return { value: (JSON.parse(text) as Record<string, unknown[]>)[path]![n - 1], calls };
    }
    expect(call["action"]).toBe("rows");
    if (call["collection"] === path) return { value: rowsOf(recall(messages, { ...call, rows: [n] })).find((r) => r.row === n)?.value, calls: 1 };
    // Another array: the note or the printed call's answer names it; then one call by its number.
    const named = note.includes(JSON.stringify(path)) || recall(messages, call).includes(`\`${path}\` (`);
    expect(named).toBe(true);
    return { value: rowsOf(recall(messages, { action: "rows", message: "call_res", collection: path, rows: [n] })).find((r) => r.row === n)?.value, calls: 2 };
  }

  it("names a recall call at every limit the shortest call fits beside the smallest form, and every omitted row is back in at most 2 calls", () => {
    const original = estimator.estimateText(textOf(message));
    let floor = original - 1;
    while (floor > 1 && compacts(floor - 1)) floor--;
    // The shortest call recall has for a message: reading it whole.
    const shortest = estimator.estimateText(`"$recall":${JSON.stringify('call `recall` with {"action":"read","message":"call_res"}')},`);
    const limits = Array.from({ length: original - (floor + shortest + 2) }, (_, i) => floor + shortest + 2 + i);
    expect(limits.length).toBeGreaterThan(10);
    let checked = 0;
    for (const limit of limits) {
      const text = textOf(compactToolResult(message, limit, { recallToolName: "recall" }));
      expect(estimator.estimateText(text)).toBeLessThanOrEqual(limit);
      const payload = JSON.parse(text) as Record<string, unknown>;
      const shortened = ["flights", "passengers", "payment_history"].filter((path) => !Array.isArray(payload[path]));
      if (shortened.length === 0) continue;
      expect({ limit, hasLine: typeof payload["$recall"] === "string" }).toEqual({ limit, hasLine: true });
      const note = payload["$recall"] as string;
      const [call] = recallCalls(note);
      checked++;
      for (const path of shortened) {
        const node = payload[path] as { retained: number; returned: number };
        for (let n = node.retained + 1; n <= node.returned; n++) {
          const got = rowBack(call!, note, path, n);
          expect({ limit, path, n, ...got }).toEqual({ limit, path, n, value: (reservation as unknown as Record<string, unknown[]>)[path]![n - 1], calls: got.calls <= 2 ? got.calls : "at most 2" });
        }
      }
    }
    // Limits with rows left out were checked (the line there is the whole result's read: nothing longer fits).
    expect(checked).toBeGreaterThan(5);
  });
});
