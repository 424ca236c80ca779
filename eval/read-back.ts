// What reading left-out rows back with the recall tool costs, against calling the source
// tool again: every fixture replayed through buildContext with the recall tool bound, and
// a scripted agent that, for each result a view cleared or shortened, follows the recall
// call the note printed — never the source tool.
import { printedRecallCall, readAnswerPart } from "@contextview/test-support";
import { buildContext, createEstimator } from "@contextview/core";
import { compactionMarkerOf } from "@contextview/core/tool-results";
import { recallFromConversation, type RecallRequest } from "@contextview/core/internal";
import { splitContent } from "../packages/core/src/compact/compact-tool-result.js";
import { asRanges } from "../packages/core/src/recall/tool-result-rows.js";
import { createRecallTool } from "@contextview/langgraph";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { callPoints } from "./replay.js";
import type { Fixture } from "./types.js";

/** Recall answers are bounded by this (the tool's default). */
export const RECALL_MAX_TOKENS = 2000;
/** Conversations of more model calls than this are looked at every third call (and the last): the pass then costs about what a short one does. */
export const EVERY_VIEW_UP_TO = 100;
const estimator = createEstimator();

/** The read-back measurement of one fixture. */
export interface ReadBackCost {
  fixture: string;
  /** Distinct tool results some view showed cleared, with rows shortened, or narrowed to their totals. */
  results: { cleared: number; shortened: number; narrowed: number };
  /** Rows those views left out (top-level collections), and how many recall gave back exactly as the tool returned them. */
  rows: { omitted: number; exact: number };
  /** Cleared results without rows (plain text, a note, the text of a result with images): read back whole by following the printed `read` call and its next calls. */
  texts: { cleared: number; exact: number };
  /**
   * Text results a view showed as a beginning-and-end excerpt (outside `results`: nothing to re-call for a row):
   * how many; whose omitted middle the printed `read` call (and the next calls it prints) gave back exactly; the
   * calls that took; and those whose marker named no call (an excerpt of a text artifact, which recall does not read).
   */
  excerpts: { shown: number; exact: number; calls: number; unnamed: number };
  /** Omitted rows the agent reached in at most 2 recall calls, each answer within `RECALL_MAX_TOKENS`. */
  withinTwoCalls: number;
  /** Calls and tokens (tool-call messages and answers) to read every omitted row back by following the notes. */
  recall: { calls: number; tokens: number; largestAnswer: number };
  /** Tokens spent to get one omitted row back, summed over the rows (the printed call, when needed, and the row's own). */
  oneRow: { rows: number; tokens: number };
  /** Tokens the same results would cost re-called from the source tool (the call and its whole result): the source calls saved. */
  reCall: { calls: number; tokens: number };
  /** Results whose note named no recall call (nothing the agent could follow). */
  unnamed: number;
}

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

const printedCall = (text: string): Json | undefined => printedRecallCall(text);

/** The payload recall reads: the artifact when it is an object (less a `model_context` beside other keys: the tool's own projection of it), else the JSON content. */
function payloadOf(message: ToolMessage): unknown {
  const artifact: unknown = message.artifact;
  if (isRecord(artifact) && "model_context" in artifact && Object.keys(artifact).length > 1) {
    const { model_context: _projection, ...rest } = artifact;
    return rest;
  }
  if (typeof artifact === "object" && artifact !== null) return artifact;
  try {
    return JSON.parse(String(message.content)) as unknown;
  } catch {
    return undefined;
  }
}

/** Arrays of a payload outside the rows of another: path → rows. */
function collections(value: unknown, path: string[] = []): Array<{ path: string[]; rows: unknown[] }> {
  if (Array.isArray(value)) return value.length > 0 ? [{ path, rows: value }] : [];
  if (!isRecord(value)) return [];
  return Object.keys(value).flatMap((key) => collections(value[key], [...path, key]));
}

/** Rows a compacted view's content left out: the root-level shortened collections (`$compacted` rows nodes outside rows). */
function shortened(value: unknown, path: string[] = []): Array<{ path: string[]; from: number; to: number }> {
  if (!isRecord(value)) return [];
  if (value["$compacted"] === "rows") {
    const { retained, returned } = value as { retained: number; returned: number };
    return returned > retained ? [{ path, from: retained + 1, to: returned }] : [];
  }
  return Object.keys(value).filter((k) => k !== "$recall").flatMap((key) => shortened(value[key], [...path, key]));
}

interface Episode {
  form: "cleared" | "shortened" | "narrowed";
  original: ToolMessage;
  /** The recall call the note printed. */
  call: Json | undefined;
  /** What is left out: collection path → row numbers (from 1). */
  omitted: Array<{ path: string[]; rows: number[] }>;
}

function episodeOf(shown: ToolMessage, original: ToolMessage): Episode | undefined {
  const marker = compactionMarkerOf(shown);
  if (marker === undefined || marker.form === "text") return undefined;
  const text = typeof shown.content === "string" ? shown.content : JSON.stringify(shown.content);
  const all = () => collections(payloadOf(original)).map((c) => ({ path: c.path, rows: c.rows.map((_, i) => i + 1) }));
  if (marker.form === "json") {
    if (marker.omittedRows === 0) return undefined;
    const value = JSON.parse(text) as unknown;
    const call = isRecord(value) && typeof value["$recall"] === "string" ? printedCall(value["$recall"]) : undefined;
    const omitted = shortened(value).map((s) => ({ path: s.path, rows: Array.from({ length: s.to - s.from + 1 }, (_, i) => s.from + i) }));
    return omitted.length === 0 ? undefined : { form: marker.references === "none" ? "narrowed" : "shortened", original, call, omitted };
  }
  return { form: marker.form, original, call: printedCall(text), omitted: all() };
}

/** One recall call: its answer ("" for an error) and whether it kept to the bound, charged as the tool-call message and the tool result the model would get. */
function ask(messages: readonly BaseMessage[], args: Json, spent: { calls: number; tokens: number; largest: number }): { text: string; bounded: boolean; tokens: number } {
  const answer = recallFromConversation(messages, args as unknown as RecallRequest, { maxToolResultTokens: RECALL_MAX_TOKENS });
  const call = new AIMessage({ content: "", tool_calls: [{ id: "r", name: "recall", args, type: "tool_call" }] });
  const result = new ToolMessage({ content: answer.text, tool_call_id: "r", name: "recall" });
  const tokens = estimator.estimateText(answer.text);
  const charged = estimator.estimateMessage(call) + estimator.estimateMessage(result);
  spent.calls++;
  spent.tokens += charged;
  spent.largest = Math.max(spent.largest, tokens);
  return { text: answer.error ? "" : answer.text, bounded: tokens <= RECALL_MAX_TOKENS, tokens: charged };
}

/** `{"row": n, "value": …}` lines of an answer, by row number. */
function rowsIn(text: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const line of text.split("\n")) if (line.startsWith('{"row":')) {
    const parsed = JSON.parse(line) as { row: number; value?: unknown };
    if ("value" in parsed) out.set(parsed.row, JSON.stringify(parsed.value));
  }
  return out;
}

/** The next call an answer prints, when it stops short. */
const nextCall = (text: string) => (/\[Not shown yet: /.test(text) ? printedCall(text.slice(text.lastIndexOf("[Not shown yet"))) : undefined);

/**
 * The scripted agent on one episode: every omitted row once by its number (the printed
 * call first for a cleared result, whose answer names the collections and counts), then
 * all of them by following the printed call with the omitted rows and its next calls.
 */
function readBack(messages: readonly BaseMessage[], episode: Episode, cost: ReadBackCost): void {
  const payload = payloadOf(episode.original);
  const sweep = { calls: 0, tokens: 0, largest: 0 };
  if (episode.call?.["action"] === "read") return episode.form === "cleared" ? readText(messages, episode.call, episode.original, cost) : readRowsWhole(messages, episode, episode.call, cost);
  const probe = { calls: 0, tokens: 0, largest: 0 };
  const message = episode.original.tool_call_id;
  // A cleared or narrowed result: the printed call first; its answer names the collections and counts their rows.
  const first = episode.call === undefined || episode.form === "shortened" ? { text: "", bounded: true, tokens: 0 } : ask(messages, episode.call, sweep);
  const firstRows = rowsIn(first.text);
  for (const { path, rows } of episode.omitted) {
    const collection = path.length === 0 ? "$" : path.join(".");
    const values = collections(payload).find((c) => c.path.join(".") === path.join("."))?.rows ?? [];
    cost.rows.omitted += rows.length;
    if (episode.call === undefined) continue;
    const inFirst = collectionOf(first.text) === collection && first.bounded ? firstRows : new Map<number, string>();
    // Each row alone: one call (after the printed one for a cleared result), within the bound.
    for (const row of rows) {
      const expected = JSON.stringify(values[row - 1]);
      const probed = inFirst.has(row) ? undefined : ask(messages, { action: "rows", message, collection, rows: [row] }, probe);
      const got = probed === undefined ? inFirst.get(row) : probed.bounded && first.bounded ? rowsIn(probed.text).get(row) : undefined;
      if (got === expected) cost.withinTwoCalls++;
      cost.oneRow.rows++;
      cost.oneRow.tokens += first.tokens + (probed?.tokens ?? 0);
    }
    // All of them, paging as the answers say: the tokens the read-back costs.
    const seen = new Map(inFirst);
    const wanted = rows.filter((row) => !seen.has(row));
    let args: Json | undefined = wanted.length === 0 ? undefined : { ...(episode.form === "shortened" ? episode.call : { action: "rows", message }), collection, rows: asRanges(wanted) };
    while (args !== undefined) {
      const { text } = ask(messages, args, sweep);
      for (const [row, value] of rowsIn(text)) seen.set(row, value);
      args = nextCall(text);
    }
    cost.rows.exact += rows.filter((row) => seen.get(row) === JSON.stringify(values[row - 1])).length;
  }
  cost.recall.calls += sweep.calls;
  cost.recall.tokens += sweep.tokens;
  cost.recall.largestAnswer = Math.max(cost.recall.largestAnswer, sweep.largest, probe.largest);
}

/**
 * Omitted rows of a note that names a `read` of the whole result (the shortest line, when no
 * `rows` call fits): its text read along the answers' next calls and parsed; each row is
 * within two calls when the text was whole by the second answer, every answer within the bound.
 */
function readRowsWhole(messages: readonly BaseMessage[], episode: Episode, call: Json, cost: ReadBackCost): void {
  const spent = { calls: 0, tokens: 0, largest: 0 };
  const text = readAlong(messages, call, spent, (next) => next);
  let read: unknown;
  try {
    read = JSON.parse(text) as unknown;
  } catch {
    read = undefined;
  }
  const rowsAt = (value: unknown, path: readonly string[]) => collections(value).find((c) => c.path.join(".") === path.join("."))?.rows ?? [];
  const withinTwo = spent.calls <= 2 && spent.largest <= RECALL_MAX_TOKENS;
  for (const { path, rows } of episode.omitted) {
    const values = rowsAt(payloadOf(episode.original), path);
    const got = rowsAt(read, path);
    const exact = rows.filter((row) => got[row - 1] !== undefined && JSON.stringify(got[row - 1]) === JSON.stringify(values[row - 1])).length;
    cost.rows.omitted += rows.length;
    cost.rows.exact += exact;
    if (withinTwo) cost.withinTwoCalls += exact;
    cost.oneRow.rows += rows.length;
    cost.oneRow.tokens += rows.length * spent.tokens;
  }
  cost.recall.calls += spent.calls;
  cost.recall.tokens += spent.tokens;
  cost.recall.largestAnswer = Math.max(cost.recall.largestAnswer, spent.largest);
}

/** A cleared text read back whole: the printed call, then each next call its answer prints. */
function readText(messages: readonly BaseMessage[], call: Json, original: ToolMessage, cost: ReadBackCost): void {
  const spent = { calls: 0, tokens: 0, largest: 0 };
  const text = readAlong(messages, call, spent, (next) => next);
  cost.texts.cleared++;
  // The text recall reads (an image block of the result is not text it gives back).
  if (text === splitContent(original.content).text) cost.texts.exact++;
  cost.recall.calls += spent.calls;
  cost.recall.tokens += spent.tokens;
  cost.recall.largestAnswer = Math.max(cost.recall.largestAnswer, spent.largest);
}

/**
 * The text of `read` calls from `call` on: each answer's part, then the next call the
 * answer prints (as `follow` keeps it; undefined stops), until one prints none.
 */
function readAlong(messages: readonly BaseMessage[], call: Json, spent: { calls: number; tokens: number; largest: number }, follow: (next: Json) => Json | undefined): string {
  let text = "";
  let args: Json | undefined = call;
  while (args !== undefined) {
    const answer: string = ask(messages, args, spent).text;
    const part = readPart(answer);
    if (part === undefined) break;
    text += part;
    const next: Json | undefined = /\[Characters \d+-\d+ not shown\. /.test(answer) ? printedCall(answer.slice(answer.lastIndexOf("[Characters"))) : undefined;
    args = next === undefined ? undefined : follow(next);
  }
  return text;
}

/** The characters of a `read` answer (after its range line): the part of the message it shows. */
function readPart(answer: string): string | undefined {
  return readAnswerPart(answer)?.text;
}

/** An excerpt's omitted middle read back: the printed call, then each next call its answer prints, up to the end of the range. */
function readExcerpt(messages: readonly BaseMessage[], shown: ToolMessage, original: ToolMessage, cost: ReadBackCost): void {
  cost.excerpts.shown++;
  const call = printedCall(typeof shown.content === "string" ? shown.content : JSON.stringify(shown.content));
  if (call?.["action"] !== "read") {
    cost.excerpts.unnamed++;
    return;
  }
  const { offset, length } = call as { offset: number; length: number };
  const spent = { calls: 0, tokens: 0, largest: 0 };
  const text = readAlong(messages, call, spent, (next) => {
    const at: unknown = next["offset"];
    return typeof at !== "number" || at >= offset + length ? undefined : { ...next, length: offset + length - at };
  });
  if (text === String(original.content).slice(offset, offset + length)) cost.excerpts.exact++;
  cost.excerpts.calls += spent.calls;
  cost.recall.largestAnswer = Math.max(cost.recall.largestAnswer, spent.largest);
}

/** The collection a `rows` answer read (`` `transactions`: 200 rows ``), if any. */
function collectionOf(answer: string): string | undefined {
  return /· `([^`]+)`: \d+ rows, read from/.exec(answer)?.[1];
}


/**
 * Replays each fixture through `buildContext` with the recall tool bound (its schema
 * charged), at every model call (every third and the last past
 * {@link EVERY_VIEW_UP_TO} calls), and, for each
 * tool result a view showed cleared, shortened or narrowed — the first view that did,
 * once per result and form — runs the scripted agent on the checkpoint as it was at
 * that call.
 *
 * @example
 * ```ts
 * const costs = measureReadBack([transactionSearchFixture]);
 * ```
 */
export async function measureReadBack(fixtures: readonly Fixture[]): Promise<ReadBackCost[]> {
  const out: ReadBackCost[] = [];
  const recallTool = createRecallTool();
  for (const fixture of fixtures) {
    const loaded = await fixture.load();
    const originals = new Map<string, ToolMessage>();
    for (const m of loaded.messages) if (ToolMessage.isInstance(m)) originals.set(m.tool_call_id, m);
    const cost: ReadBackCost = { fixture: fixture.name, results: { cleared: 0, shortened: 0, narrowed: 0 }, rows: { omitted: 0, exact: 0 }, withinTwoCalls: 0, recall: { calls: 0, tokens: 0, largestAnswer: 0 }, oneRow: { rows: 0, tokens: 0 }, reCall: { calls: 0, tokens: 0 }, unnamed: 0, texts: { cleared: 0, exact: 0 }, excerpts: { shown: 0, exact: 0, calls: 0, unnamed: 0 } };
    const done = new Set<string>();
    const points = callPoints(loaded.messages);
    const stride = points.length > EVERY_VIEW_UP_TO ? 3 : 1;
    for (const point of points.filter((_, i) => i % stride === 0 || i === points.length - 1)) {
      const messages = loaded.messages.slice(0, point);
      const view = buildContext({ messages, systemPrompt: fixture.systemPrompt, tools: [...fixture.tools, recallTool], budget: fixture.budget });
      for (const shown of view.messages) {
        if (!ToolMessage.isInstance(shown)) continue;
        const original = originals.get(shown.tool_call_id);
        const marker = compactionMarkerOf(shown);
        if (original !== undefined && marker?.form === "text" && marker.omittedChars > 0 && !done.has(`excerpted:${shown.tool_call_id}`)) {
          done.add(`excerpted:${shown.tool_call_id}`);
          readExcerpt(messages, shown, original, cost);
          continue;
        }
        const episode = original === undefined ? undefined : episodeOf(shown, original);
        if (episode === undefined || done.has(`${episode.form}:${shown.tool_call_id}`)) continue;
        done.add(`${episode.form}:${shown.tool_call_id}`);
        cost.results[episode.form]++;
        if (episode.call === undefined) cost.unnamed++;
        readBack(messages, episode, cost);
        // The re-call instead: the source tool's call again and its whole result.
        const call = loaded.messages.find((m): m is AIMessage => AIMessage.isInstance(m) && (m.tool_calls ?? []).some((c) => c.id === shown.tool_call_id));
        const args = call?.tool_calls?.find((c) => c.id === shown.tool_call_id);
        cost.reCall.calls++;
        cost.reCall.tokens += estimator.estimateMessage(new AIMessage({ content: "", tool_calls: args ? [args] : [] })) + estimator.estimateMessage(original!);
      }
    }
    out.push(cost);
  }
  return out;
}
