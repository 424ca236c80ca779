import { CONTINUATION_LABEL, HISTORY_LABEL, IMAGE_PLACEHOLDER, textOf } from "@contextview/core/internal";
import { type ContextReport } from "@contextview/core";
import { compactionMarkerOf } from "@contextview/core/tool-results";
import type { ViewRecord } from "@contextview/core/store";
import type { BaseMessage } from "@langchain/core/messages";
import { count, html, type Markup } from "./html.js";

const EXCERPT = /\[… excerpt: (\d+) of (\d+) characters omitted\]/g;
const EXCERPTS_OF_DROPPED = "Excerpts of earlier turns that are no longer shown in full.";

/** What a message of the view is, and what contextview left out of it. */
interface Annotation {
  tag: string;
  kind: "omission" | "inserted" | "current" | "plain";
}

/**
 * What contextview inserted in the head of a view, told apart by what the library
 * wrote, never by ids or metadata a conversation message can carry: the history
 * message is the one with the text of the summary or evidence the record stored
 * (and only when the report says it was shown); the excerpts of dropped turns only
 * when the report counts some.
 */
export interface InsertedHead {
  /** The summary or evidence message the view was rebuilt with (`RebuiltView.historyMessage`). */
  readonly historyMessage: BaseMessage | null;
  /** True when that message is a summary (it may carry evidence), false for evidence alone. */
  readonly summary: boolean;
}

type HeadKind = "summary" | "evidence" | "excerpts";

/** Index → what contextview inserted there: the first AI message matching each, at most one of each. */
function insertedAt(messages: readonly BaseMessage[], report: ContextReport, head: InsertedHead): Map<number, HeadKind> {
  const found = new Map<number, HeadKind>();
  const historyText = head.historyMessage !== null && report.history.included ? textOf(head.historyMessage.content) : undefined;
  let excerpts = report.droppedTurnExcerpts > 0;
  let history = historyText !== undefined;
  messages.forEach((message, i) => {
    if (message.type !== "ai") return;
    const text = textOf(message.content);
    if (history && text === historyText) {
      found.set(i, head.summary ? "summary" : "evidence");
      history = false;
    } else if (excerpts && text.startsWith(EXCERPTS_OF_DROPPED)) {
      found.set(i, "excerpts");
      excerpts = false;
    }
  });
  return found;
}

function annotationsOf(message: BaseMessage, offset: number, current: boolean, inserted: HeadKind | undefined): Annotation[] {
  const notes: Annotation[] = [];
  const text = textOf(message.content);
  const marker = compactionMarkerOf(message);
  if (marker?.form === "cleared") notes.push({ tag: `tool result cleared — about ${count(marker.originalTokens)} tokens omitted`, kind: "omission" });
  else if (marker?.form === "json") notes.push({ tag: `tool result compacted — ${count(marker.omittedRows)} rows and ${count(marker.omittedChars)} characters omitted`, kind: "omission" });
  else if (marker?.form === "text") notes.push({ tag: `tool result compacted — ${count(marker.omittedChars)} of ${count(marker.totalChars)} characters omitted`, kind: "omission" });
  for (const match of text.matchAll(EXCERPT)) notes.push({ tag: `excerpt — ${count(Number(match[1]))} of ${count(Number(match[2]))} characters omitted`, kind: "omission" });
  const images = text.split(IMAGE_PLACEHOLDER).length - 1;
  if (images > 0) notes.push({ tag: `${images} image${images > 1 ? "s" : ""} replaced by a placeholder`, kind: "omission" });
  if (message.type === "human" && (text === HISTORY_LABEL || text === CONTINUATION_LABEL)) notes.push({ tag: "label inserted by contextview", kind: "inserted" });
  if (inserted === "summary") notes.push({ tag: offset > 0 ? `summary — stands for checkpoint messages 1–${count(offset)}` : "summary", kind: "inserted" });
  else if (inserted === "evidence") notes.push({ tag: "durable evidence of older turns", kind: "inserted" });
  else if (inserted === "excerpts") notes.push({ tag: "excerpts of dropped turns", kind: "inserted" });
  if (current) notes.push({ tag: "current turn", kind: "current" });
  return notes;
}

function isLabel(message: BaseMessage): boolean {
  const text = textOf(message.content);
  return message.type === "human" && (text === HISTORY_LABEL || text === CONTINUATION_LABEL);
}

function omittedHistory(report: ContextReport, record: ViewRecord): Markup | null {
  const parts: string[] = [];
  const { dropped, unread, read, summarized } = report.messages;
  const { count: total, offset } = record.messages;
  // The view's input is the checkpoint's leading system messages plus messages [offset, count).
  const lead = offset > 0 ? read + unread - (total - offset) : 0;
  const start = offset > 0 ? offset : lead;
  if (summarized > 0) parts.push(`Checkpoint messages ${count(lead + 1)}–${count(offset)} (${count(summarized)} summarized) are replaced by the summary above`);
  if (dropped + unread > 0) {
    const droppedEnd = start + Math.max(0, report.cut - lead);
    const range = droppedEnd > start ? `checkpoint messages ${count(start + 1)}–${count(droppedEnd)}: ` : "";
    const turns = report.turns.dropped;
    const what = [
      dropped > 0 ? `${count(dropped)} dropped (read, ${count(turns)} turn${turns === 1 ? "" : "s"})` : "",
      unread > 0 ? `${count(unread)} unread (never read${report.pinned.openingRequest?.placement === "pinned" || report.pinned.messages.length > 0 ? "; pinned ones shown above" : ""})` : "",
    ].filter((part) => part !== "");
    parts.push(`${range}older messages left out of this view: ${what.join(", ")}`);
  }
  if (parts.length === 0) return null;
  return html`<li class="omitted"><span>⋯</span> ${parts.join("; ")} — they remain in the checkpoint.</li>`;
}

/**
 * The view's messages as the model got them, each with its role, content (as
 * text, escaped), tool calls and what contextview inserted or left out, and a
 * marker where older messages were left out. `head` says which message is the
 * summary or evidence contextview inserted (see {@link InsertedHead}).
 */
export function viewMessages(messages: readonly BaseMessage[], report: ContextReport, record: ViewRecord, head: InsertedHead): Markup {
  const inserted = insertedAt(messages, report, head);
  let currentFrom = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as BaseMessage;
    if (message.type === "human" && !isLabel(message)) {
      currentFrom = i;
      break;
    }
  }
  // The head: system, then (label, summary or excerpts). Older messages were left out right after it.
  let headEnd = messages[0]?.type === "system" ? 1 : 0;
  const afterLabel = messages[headEnd + 1];
  if (messages[headEnd] && textOf((messages[headEnd] as BaseMessage).content) === HISTORY_LABEL && afterLabel && afterLabel.type === "ai") headEnd += 2;
  const items: Markup[] = [];
  messages.forEach((message, i) => {
    if (i === headEnd) {
      const omitted = omittedHistory(report, record);
      if (omitted) items.push(omitted);
    }
    const notes = annotationsOf(message, record.messages.offset, i >= currentFrom, inserted.get(i));
    const calls = ((message as { tool_calls?: { name: string; args?: unknown; id?: string }[] }).tool_calls ?? []).map(
      (call) => html`<li><code>${call.name}</code>(${JSON.stringify(call.args ?? {})})</li>`,
    );
    const name = (message as { name?: unknown }).name;
    const toolCallId = (message as { tool_call_id?: unknown }).tool_call_id;
    const omission = notes.some((n) => n.kind === "omission");
    items.push(html`<li class="${`msg role-${message.type}${omission ? " has-omission" : ""}${i >= currentFrom ? " is-current" : ""}`}">
  <div class="msg-head"><span class="role">${message.type}</span>${typeof name === "string" ? html`<span class="name">${name}</span>` : null}${typeof toolCallId === "string" ? html`<span class="callid">${toolCallId}</span>` : null}${notes.map((n) => html`<span class="${`note note-${n.kind}`}">${n.tag}</span>`)}</div>
  ${textOf(message.content) === "" ? null : html`<pre class="content">${textOf(message.content)}</pre>`}
  ${calls.length > 0 ? html`<ul class="calls">${calls}</ul>` : null}
</li>`);
  });
  if (headEnd >= messages.length) {
    const omitted = omittedHistory(report, record);
    if (omitted) items.push(omitted);
  }
  return html`<ol class="messages">${items}</ol>`;
}
