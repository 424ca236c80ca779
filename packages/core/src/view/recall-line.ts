import type { BaseMessage } from "@langchain/core/messages";
import { kindOf, textOf, toBaseMessage, toolCallIdOf, toolCallsOf, type MessageInput, type MessageKind } from "../messages.js";
import { lineId } from "./line-id.js";
import { DateRuns, recallDate } from "./recall-date.js";
import { clip, clipAround } from "./recall-excerpt.js";
import type { Estimator } from "../estimate.js";
import type { MessageDate } from "./types.js";
import { inlineName } from "../inline-text.js";

// The line of one recalled message (see `recallBlock`): its header, the text around its
// excerpt, and whether it may be recalled at all.

/** Longest rendering of a recalled call's arguments. */
const ARGS_CHARS = 300;
/** Longest text of one recalled message, in characters; a longer one is a marked excerpt. */
export const RECALLED_CHARS = 900;

/** What every line of one block is read from. */
export interface LineSource {
  conversation: readonly MessageInput[];
  lead: number;
  /** Ids of messages the view shows anyway: never recalled. */
  shownIds: ReadonlySet<string>;
  messageDate: MessageDate | undefined;
  estimator: Estimator;
}

/**
 * The lines of a recalled block as it fills: each message's line taken while it fits the
 * room left, in `runs` (conversation order, with their date headings). `known` keeps each
 * line's estimated tokens before its date between calls (see `ConversationIndex.derived`),
 * so a line that cannot fit is not read again: most candidates of a full block.
 *
 * @example
 * ```ts
 * const lines = new BlockLines(source, 1000, new Set(terms), index.derived(estimator));
 * lines.take(42); // "taken"
 * ```
 */
export class BlockLines {
  readonly runs: DateRuns;

  constructor(private readonly source: LineSource, public room: number, private readonly wanted: ReadonlySet<string>, private readonly known: Map<number, number>) {
    this.runs = new DateRuns(source.estimator);
  }

  /** Take message `i`'s line when it fits: "taken", "too-long", or "not-recallable" (see {@link lineOf}). */
  take(i: number): "taken" | "too-long" | "not-recallable" {
    const { conversation, lead, shownIds, messageDate, estimator } = this.source;
    // Every line is charged at least one token beside its text (see DateRuns for a date's).
    const known = this.known.get(i);
    if (known !== undefined && known + 1 > this.room && notShown(conversation, i, shownIds)) return "too-long";
    const line = lineOf(conversation, i, lead, shownIds, messageDate);
    if (line === undefined) return "not-recallable";
    const extra = 1 + this.runs.cost(i, line.date);
    let text = line.before + clip(line.content, RECALLED_CHARS) + line.after;
    const lineTokens = known ?? estimator.estimateText(text);
    this.known.set(i, lineTokens);
    let tokens = lineTokens + extra;
    if (tokens > this.room) return "too-long";
    // A long message is shown where the terms it was found by are, when that fits too;
    // only for a line that is taken (most candidates of a full block are not).
    if (line.content.length > RECALLED_CHARS && this.wanted.size > 0) {
      const around = line.before + clipAround(line.content, RECALLED_CHARS, this.wanted) + line.after;
      const aroundTokens = estimator.estimateText(around) + extra;
      if (aroundTokens <= this.room) [text, tokens] = [around, aroundTokens];
    }
    this.room -= tokens;
    this.runs.add(i, line.date, text);
    return "taken";
  }
}

/**
 * One line for message `i`: the text around its excerpt (the line is `before`, the
 * excerpt of `content`, then `after`) and its date (read with `messageDate`), or
 * undefined when it may not be recalled (shown anyway, an orphan, an unfinished call,
 * no text). The excerpt is the caller's: cut from its beginning ({@link clip}) or
 * where the request's terms are ({@link clipAround}).
 */
function lineOf(conversation: readonly MessageInput[], i: number, lead: number, shownIds: ReadonlySet<string>, messageDate: MessageDate | undefined): Line | undefined {
  const kind = kindOf(conversation[i], i);
  if (kind === "system") return undefined;
  if (!notShown(conversation, i, shownIds)) return undefined;
  const message = toBaseMessage(conversation[i] as MessageInput, i);
  const content = textOf(message.content);
  const frame = lineFrame(conversation, i, lead, kind, message, content);
  return frame === undefined ? undefined : { ...frame, content, date: messageDate === undefined ? undefined : recallDate(messageDate, message, i) };
}

/** False for a message whose id the view shows anyway: of {@link lineOf}'s checks, the one that changes while the message stays the same. */
function notShown(conversation: readonly MessageInput[], i: number, shownIds: ReadonlySet<string>): boolean {
  if (shownIds.size === 0) return true;
  const id = toBaseMessage(conversation[i] as MessageInput, i).id;
  return id === undefined || !shownIds.has(id);
}

/** A recalled line before its message's text is excerpted (see {@link lineOf}). */
interface Line {
  before: string;
  content: string;
  after: string;
  date: string | undefined;
}

/** The text of {@link lineOf}'s line around its excerpt. */
function lineFrame(conversation: readonly MessageInput[], i: number, lead: number, kind: MessageKind, message: BaseMessage, content: string): { before: string; after: string } | undefined {
  const id = message.id === undefined || message.id === "" ? "" : ` · id ${inlineName(lineId(message.id))}`;
  const head = (role: string) => `[#${i} · ${role}${id}]`;
  if (kind === "tool") {
    const call = callOf(conversation, i, lead, toolCallIdOf(message));
    if (call === undefined) return undefined;
    return { before: `${head(`tool result of ${inlineName(call.name)}(${clip(JSON.stringify(call.args ?? {}), ARGS_CHARS)})`)} `, after: "" };
  }
  const calls = kind === "ai" ? toolCallsOf(message) : [];
  if (calls.length > 0 && !answered(conversation, i, calls.map((c) => c.id))) return undefined;
  const called = calls.map((c) => `called ${inlineName(c.name)}(${clip(JSON.stringify(c.args ?? {}), ARGS_CHARS)})`).join("; ");
  // An excerpt is empty only for a text of whitespace: then the line is the calls alone.
  if (!/\S/.test(content)) return called === "" ? undefined : { before: `${head(roleName(kind))} ${called}`, after: "" };
  return { before: `${head(roleName(kind))} `, after: called === "" ? "" : ` — ${called}` };
}

function roleName(kind: MessageKind): string {
  return kind === "human" ? "user" : "assistant";
}

/** The call a tool result answers: in the AI message right before its run of results; undefined for an orphan. */
function callOf(conversation: readonly MessageInput[], i: number, lead: number, id: string | undefined): { name: string; args: unknown } | undefined {
  let j = i - 1;
  while (j >= lead && kindOf(conversation[j], j) === "tool") j--;
  if (j < lead || kindOf(conversation[j], j) !== "ai" || id === undefined) return undefined;
  return toolCallsOf(toBaseMessage(conversation[j] as MessageInput, j)).find((call) => call.id === id);
}

/** True when every call of the AI message at `i` has a result right after it. */
function answered(conversation: readonly MessageInput[], i: number, ids: readonly (string | undefined)[]): boolean {
  const results = new Set<string>();
  for (let j = i + 1; j < conversation.length && kindOf(conversation[j], j) === "tool"; j++) {
    const id = toolCallIdOf(toBaseMessage(conversation[j] as MessageInput, j));
    if (id !== undefined) results.add(id);
  }
  return ids.every((id) => id !== undefined && results.has(id));
}
