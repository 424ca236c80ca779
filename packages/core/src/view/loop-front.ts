import type { BaseMessage } from "@langchain/core/messages";
import { compactionMarkerOf } from "../compact/marker.js";
import { shownOlderTurn, type ChosenOlderTurns } from "./allocate-view.js";
import type { TurnWalk } from "./find-turns.js";
import type { PinnedBlock } from "./pinned-block.js";
import type { PreparedTurn } from "./prepare-turn.js";
import type { ProviderHead } from "./provider-head.js";
import type { ContextReport } from "./types.js";

// The front of a reasoning loop's first view (see reasoningLoop): the parts that may leave
// it, whole and oldest first, once the loop outgrows its room, and the report without them.

/**
 * One part of a first call's view that may leave it from the front, whole: the pinned
 * block, the history head (summary, evidence or excerpts), one older turn, the recall
 * block — in that order, as the view shows them — and what the report counted for it.
 */
export interface FrontPart {
  kind: "pinned" | "history" | "turn" | "recall";
  /** Its messages in the view. */
  messages: number;
  /** Their estimated tokens, as the view's report counted them. */
  tokens: number;
  /** Input messages it shows, counted as kept (a turn's; 0 for the others). */
  inputMessages: number;
  /** Exchanges it shows (a turn's). */
  exchanges: number;
  /** Labels inserted in it, counted in `labelsInserted`. */
  labels: number;
  /** A turn: where the view's cut is once it left (the next kept turn's start, or the current turn's). */
  nextCut?: number;
  /** The pinned block: its copies counted as kept from before the cut, and from the part never read. */
  pinnedOutside?: number;
  pinnedUnread?: number;
  /** Images replaced by placeholders in it, counted in `imagesReplaced` (the pinned block's, a turn's). */
  imagesReplaced?: number;
  /** Its messages whose text became an excerpt, counted in `excerpted` (a turn's). */
  excerpted?: number;
}

/** Where a first call's view may lose messages from the front: after `before` (the system message and any provider head), its parts in order. */
export interface FrontLayout {
  before: number;
  parts: FrontPart[];
}

/** What a view's allocation chose, as {@link frontLayout} reads it (references, nothing computed). */
export interface FrontInputs {
  /** The system message and the provider head: the messages before the pinned block. */
  afterHead: number;
  head: ProviderHead;
  block: PinnedBlock;
  chosen: ChosenOlderTurns;
  older: readonly PreparedTurn[];
  walk: TurnWalk;
  recalled: { messages: number; tokens: number };
}

/**
 * The parts of a view that may leave from the front (see {@link FrontPart}), with the
 * tokens the report counted for each. None when the view opens with a provider
 * compaction: its tool loop and what follows it go on as the provider sees them.
 *
 * @example
 * ```ts
 * const layout = frontLayout({ afterHead, head, block, chosen, older: older.reached, walk, recalled: { messages: 3, tokens: 240 } });
 * ```
 */
export function frontLayout(view: FrontInputs): FrontLayout {
  const { afterHead, head, block, chosen, older, walk, recalled } = view;
  if (head.messages.length > 0) return { before: afterHead, parts: [] };
  const parts: FrontPart[] = [];
  const cut = chosen.kept > 0 ? (walk.starts[chosen.kept - 1] as number) : walk.currentStart;
  if (block.messages.length > 0) {
    const pinnedOutside = block.inputStarts.filter((start) => start < cut).length;
    const pinnedUnread = block.inputStarts.filter((start) => start < walk.oldestRead).length;
    const { labels, imagesReplaced, tokens } = block;
    const counts = { inputMessages: 0, exchanges: 0, labels, pinnedOutside, pinnedUnread, imagesReplaced };
    parts.push({ kind: "pinned", messages: block.messages.length, tokens, ...counts });
  }
  const headPart = { kind: "history", messages: chosen.head.length, tokens: chosen.headTokens, inputMessages: 0, exchanges: 0, labels: 0 } as const;
  if (chosen.head.length > 0) parts.push(headPart);
  for (let j = chosen.kept - 1; j >= 0; j--) {
    const turn = shownOlderTurn(chosen, older, j);
    const nextCut = j > 0 ? (walk.starts[j - 1] as number) : walk.currentStart;
    const { inputMessages, exchanges, tokens, counts } = turn;
    const changed = { labels: counts.labels, imagesReplaced: counts.imagesReplaced, excerpted: counts.excerpted };
    parts.push({ kind: "turn", messages: turn.messages.length, tokens, inputMessages, exchanges, ...changed, nextCut });
  }
  if (recalled.messages > 0) parts.push({ kind: "recall", ...recalled, inputMessages: 0, exchanges: 0, labels: 1 });
  return { before: afterHead, parts };
}

/**
 * How many parts leave from the front to free `over` tokens (0 when nothing is over),
 * or undefined when all of them do not. They leave in steps: the parts of the first
 * anchor that frees enough, anchors falling every `dropStep` of the parts' tokens (0:
 * exactly what is needed). A loop only grows, so each later call leaves as many or
 * more, and as many while the same anchor holds: the view changes once per step.
 *
 * @example
 * ```ts
 * leftParts(900, [400, 300, 700, 500], 0.25); // 3: anchors at 475, 950 tokens; 1,400 freed
 * ```
 */
export function leftParts(over: number, tokens: readonly number[], dropStep: number): number | undefined {
  if (over <= 0) return 0;
  let all = 0;
  for (const t of tokens) all += t;
  if (all < over) return undefined;
  const step = Math.max(1, Math.floor(dropStep * all));
  // The first anchor at or past what is over: a multiple of the step, or all the parts.
  const anchor = Math.min(all, Math.ceil(over / step) * step);
  let freed = 0;
  for (let i = 0; i < tokens.length; i++) {
    freed += tokens[i] as number;
    if (freed >= anchor) return i + 1;
  }
  return tokens.length;
}

/** The parts that left the front of a view, and their messages. */
export interface FrontLeft {
  parts: readonly FrontPart[];
  messages: readonly BaseMessage[];
}

/**
 * The report of a view whose first `parts` left from the front (`messages` in all): their tokens, kept messages, exchanges, turns, labels and compacted results
 * taken out; the pinned block, history head and recall block reported as left out.
 *
 * @example
 * ```ts
 * const report = withoutFront(first.report, { parts: layout.parts.slice(0, 2), messages: first.messages.slice(1, 6) });
 * ```
 */
export function withoutFront(report: ContextReport, dropped: FrontLeft): ContextReport {
  if (dropped.parts.length === 0) return report;
  const copies = { tokens: { ...report.tokens }, messages: { ...report.messages }, exchanges: { ...report.exchanges }, turns: { ...report.turns } };
  const out: ContextReport = { ...report, ...copies };
  let cleared = 0;
  let shortened = 0;
  for (const message of dropped.messages) {
    if (message.type !== "tool") continue;
    const form = compactionMarkerOf(message)?.form;
    if (form === "cleared") cleared++;
    else if (form !== undefined) shortened++;
  }
  const compacted = Math.min(shortened, report.toolResults.compacted);
  const results = report.toolResults;
  out.toolResults = { cleared: results.cleared - cleared, compacted: results.compacted - compacted, narrowed: results.narrowed - (shortened - compacted) };
  for (const part of dropped.parts) {
    const { tokens } = part;
    out.tokens.total -= tokens;
    out.labelsInserted -= part.labels;
    out.imagesReplaced -= part.imagesReplaced ?? 0;
    out.excerpted -= part.excerpted ?? 0;
    if (part.kind === "pinned") {
      out.tokens.pinned -= tokens;
      // Its copies from before the cut were kept; those from the part never read were kept and not dropped.
      out.messages.kept -= part.pinnedOutside ?? 0;
      out.messages.dropped += (part.pinnedOutside ?? 0) - (part.pinnedUnread ?? 0);
      const opening = report.pinned.openingRequest;
      out.pinned = {
        ...report.pinned,
        openingRequest: opening !== null && opening.placement === "pinned" ? { ...opening, placement: "no-room" } : opening,
        messages: [],
        excerpted: 0,
        dropped: report.pinned.dropped + report.pinned.messages.length,
      };
    } else if (part.kind === "history") {
      out.tokens.history -= tokens - report.tokens.summary;
      out.tokens.summary = 0;
      out.droppedTurnExcerpts = 0;
      const { evidenceOmitted, evidenceShown } = report.history;
      const leftOut = { given: true, included: false, reason: "does-not-fit", summary: false, evidence: false, evidenceOmitted, evidenceShown } as const;
      out.history = report.history.given ? leftOut : report.history;
    } else if (part.kind === "turn") {
      out.tokens.history -= tokens;
      out.messages.kept -= part.inputMessages;
      out.messages.dropped += part.inputMessages;
      out.exchanges.kept -= part.exchanges;
      out.exchanges.dropped += part.exchanges;
      out.turns.kept -= 1;
      out.turns.dropped += 1;
      out.cut = part.nextCut as number;
    } else {
      out.tokens.recall -= tokens;
      out.recall = { ...report.recall, outcome: "no-room", recalled: 0, recent: 0, tokens: 0 };
    }
  }
  return out;
}

