import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, ContextViewError, createEstimator } from "@contextview/core";
import { compactOrNarrow, compactToolResult, compactionMarkerOf } from "@contextview/core/tool-results";
import { githubIssuesList, githubSearch, githubSearchIssues, slackRtmStart, stripeObjects } from "../../../../test/fixtures/api/apiPayloads";
import { textOf } from "../../src/messages.js";
import { contentJson, projectionProblems } from "./laws.js";
import { thrownBy } from "@contextview/test-support";

const estimator = createEstimator();
type Json = Record<string, unknown>;

const result = (payload: unknown, id = "call-1", name = "search_issues") => new ToolMessage({ content: JSON.stringify(payload), tool_call_id: id, name });

const limitErrorOf = (run: () => unknown) => thrownBy<ContextViewError>(run, (error) => ContextViewError.isInstance(error));

/** A current turn: the request, one AI message calling every tool, and the results. */
function currentTurn(request: string, results: ToolMessage[]): BaseMessage[] {
  const calls = results.map((r) => ({ id: r.tool_call_id, name: r.name ?? "tool", args: { q: request }, type: "tool_call" as const }));
  return [new HumanMessage({ id: "h1", content: request }), new AIMessage({ id: "a1", content: "", tool_calls: calls }), ...results];
}

const NEVER_CALL_AGAIN = /call (the|the source) tool again/;

describe("lean references on recorded API payloads", () => {
  const search = githubSearch(100);

  it("the 100-row search's level-0 floor is at most 3,000 tokens and its identifiers-only floor at most 400", () => {
    const error = limitErrorOf(() => compactToolResult(result(search), 50));
    expect(error.code).toBe("COMPACTION_LIMIT");
    const floor = error.details["referencesTokens"] as number;
    const ids = error.details["requiredTokens"] as number;
    console.log(`100-row search: ${estimator.estimateText(JSON.stringify(search))} tokens whole; level-0 floor ${floor} (${(floor / 100).toFixed(1)}/row); ids-only ${ids}`);
    expect(floor).toBeLessThanOrEqual(3000);
    expect(ids).toBeLessThanOrEqual(400);

    const atFloor = compactToolResult(result(search), floor);
    const node = (contentJson(atFloor) as { items: Json }).items;
    expect(compactionMarkerOf(atFloor)).toMatchObject({ form: "json", references: "full" });
    const refs = node["omitted_refs"] as { fields: string[]; rows: unknown[][]; links?: Record<string, string> };
    // Identifiers and dates; one link, written once as a pattern; no URL template, no API URL.
    expect(refs.fields).toEqual(expect.arrayContaining(["id", "number", "created_at"]));
    expect(refs.fields.some((field) => field.endsWith("_url") || field === "url")).toBe(false);
    expect(refs.links).toEqual({ html_url: "https://github.com/octokit-fixture-org/search-issues/issues/{number}" });
    expect(JSON.stringify(node)).not.toContain("{/name}");
    expect(projectionProblems(search, contentJson(atFloor))).toEqual([]);
    const numbers = refs.rows.map((row) => row[refs.fields.indexOf("number")]);
    expect(numbers).toEqual(search.items.slice(search.items.length - numbers.length).map((row) => row["number"]));
  });

  it("below the floor, keeps one identifier per row before anything else", () => {
    const out = compactToolResult(result(search), 600);
    const node = (contentJson(out) as { items: Json }).items;
    expect(compactionMarkerOf(out)).toMatchObject({ references: "ids" });
    const ids = node["omitted_ids"] as { field: string; ids: unknown[] };
    expect(ids.field).toBe("number");
    expect(ids.ids.length + (node["retained"] as number)).toBe(100);
    expect(node["notice"]).toMatch(/narrow the query/);
    expect(projectionProblems(search, contentJson(out))).toEqual([]);
  });

  it("a result of the current turn too large even for identifiers keeps its totals and says to narrow the query", () => {
    const { message, outcome } = compactOrNarrow(result(search), 120);
    expect(outcome).toBe("narrowed");
    const text = textOf(message.content);
    expect(estimator.estimateText(text)).toBeLessThanOrEqual(120);
    expect(text).toMatch(/narrow the query \(filters, paging\)/i);
    expect(text).not.toMatch(NEVER_CALL_AGAIN);
    expect(JSON.parse(text)).toMatchObject({ total_count: 100, items: { returned: 100, retained: 0, omitted: 100 } });
  });

  it("the 2-row recorded search keeps the lean references of its rows, not their 8 URLs", () => {
    const recorded = githubSearchIssues();
    const out = contentJson(compactToolResult(result(recorded), 300)) as { items: Json };
    const refs = out.items["omitted_refs"] as { fields: string[] };
    expect(refs.fields.filter((field) => /url/.test(field)).length).toBeLessThanOrEqual(1);
  });
});

describe("projected rows on recorded API payloads", () => {
  it("the 13-row issue list at 8,000 tokens keeps all 13 rows with their titles", () => {
    const list = githubIssuesList();
    const view = buildContext({ messages: currentTurn("Which issues are open?", [result(list, "call-1", "list_issues")]), budget: { promptBudget: 8000 } });
    const tool = view.messages.find((m): m is ToolMessage => ToolMessage.isInstance(m))!;
    const rows = contentJson(tool) as Json[];
    expect(Array.isArray(rows)).toBe(true);
    expect(rows.map((row) => row["title"])).toEqual(list.map((row) => row["title"]));
    // The nested user shrinks to its login and id; labels to their names.
    expect(rows[0]!["user"]).toEqual({ login: (list[0]!["user"] as Json)["login"], id: (list[0]!["user"] as Json)["id"] });
    expect(compactionMarkerOf(tool)).toMatchObject({ form: "json" });
    expect((compactionMarkerOf(tool) as { projectedValues: number }).projectedValues).toBeGreaterThan(0);
    expect(projectionProblems(list, rows)).toEqual([]);
    expect(view.report.tokens.total).toBeLessThanOrEqual(8000);
  });

  it("a Stripe invoice projects its nested objects and keeps its line items findable", () => {
    const { invoice } = stripeObjects();
    const out = compactToolResult(result({ invoices: [invoice, invoice, invoice].map((inv, i) => ({ ...inv, id: `in_${i}` })) }), 500);
    const json = contentJson(out);
    expect(projectionProblems({ invoices: [invoice, invoice, invoice].map((inv, i) => ({ ...inv, id: `in_${i}` })) }, json)).toEqual([]);
    expect(estimator.estimateText(textOf(out.content))).toBeLessThanOrEqual(500);
  });

  it("a Slack rtm.start response compacts lawfully: channels and users findable by id", () => {
    const rtm = slackRtmStart();
    const out = compactToolResult(result(rtm), 2200);
    const json = contentJson(out) as Json;
    expect(projectionProblems(rtm, json)).toEqual([]);
    expect(estimator.estimateText(textOf(out.content))).toBeLessThanOrEqual(2200);
  });
});

describe("the current turn's room", () => {
  it("three modest API results at a 3,000-token budget fit instead of raising", () => {
    const { charge, payment_intent } = stripeObjects();
    const results = [result(charge, "c1", "get_charge"), result(payment_intent, "c2", "get_payment_intent"), result(slackRtmStart(), "c3", "rtm_start")];
    const sizes = results.map((r) => textOf(r.content).length);
    const view = buildContext({ messages: currentTurn("Summarize the payment and the team.", results), budget: { promptBudget: 3000 } });
    console.log(`3,000-token budget, results of ${sizes.join(", ")} bytes: total ${view.report.tokens.total}, compacted ${view.report.toolResults.compacted}, narrowed ${view.report.toolResults.narrowed}`);
    expect(view.report.tokens.total).toBeLessThanOrEqual(3000);
    expect(view.report.toolResults.cleared).toBe(0);
    for (const m of view.messages) expect(textOf(m.content)).not.toMatch(NEVER_CALL_AGAIN);
  });

  it("one big search beside two small results gets most of the room, in proportion to size", () => {
    const { customer, payment_intent } = stripeObjects();
    const results = [result(githubSearch(100), "c1"), result(customer, "c2", "get_customer"), result(payment_intent, "c3", "get_payment_intent")];
    const view = buildContext({ messages: currentTurn("Find the issues and the customer.", results), budget: { promptBudget: 8000 } });
    const tokens = view.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => estimator.estimateText(textOf(m.content)));
    expect(tokens[0]!).toBeGreaterThan(5 * (tokens[1]! + tokens[2]!));
    expect(tokens[0]!).toBeGreaterThan(0.7 * (8000 - 200));
    expect(view.report.toolResults.cleared).toBe(0);
    expect(view.report.tokens.total).toBeLessThanOrEqual(8000);
  });

  it("the 100-row search in the current turn at the default budget is answered from, never cleared", () => {
    const search = githubSearch(100);
    const view = buildContext({ messages: currentTurn("Which issues mention the rate limit?", [result(search)]) });
    const tool = view.messages.find((m): m is ToolMessage => ToolMessage.isInstance(m))!;
    const text = textOf(tool.content);
    expect(text).not.toMatch(NEVER_CALL_AGAIN);
    const items = (JSON.parse(text) as { items: Json }).items;
    expect(items["retained"]).toBeGreaterThan(10);
    expect(view.report.toolResults).toEqual({ cleared: 0, compacted: 1, narrowed: 0 });
    console.log(`100-row search at the default budget: ${String(items["retained"])} rows kept projected, ${String(items["omitted"])} by reference; total ${view.report.tokens.total}`);
  });
});
