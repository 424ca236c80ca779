import { type ContextReport, type ManagedReport, type MessageCounts } from "@contextview/core";
import { compactionMarkerOf } from "@contextview/core/tool-results";
import { EVERY_TOOL_RESULT } from "@contextview/core/internal";
import type { InspectedCall } from "../inspect-thread.js";
import { budgetBar, budgetLegend } from "./budget-bar.js";
import { evidenceEntries } from "./evidence.js";
import { count, html, type Markup } from "./html.js";
import { viewMessages } from "./view-messages.js";

const STATUS_TEXT = {
  match: "Rebuilt from the checkpoint and the recorded options: the report is identical, so these are exactly the messages the model got.",
  mismatch: "The rebuilt view does NOT match the recorded one (options changed in code, or the checkpoint was edited). What is shown below is the rebuilt view, not necessarily what the model got.",
  unverifiable: "This view could not be rebuilt; the numbers below are the recorded ones.",
} as const;

function fact(label: string, value: string | number, hint?: string): Markup {
  return html`<div class="fact"${hint ? html` title="${hint}"` : null}><dt>${label}</dt><dd>${typeof value === "number" ? count(value) : value}</dd></div>`;
}

/** What the history slot showed, in the words of docs/observability.md ("The vocabulary"). */
/** The `summary` field of a record made before 1.0, which had no `history`. */
type LegacySummary = { given: boolean; included: boolean } | undefined;
const legacySummaryOf = (report: object): LegacySummary => (report as { summary?: LegacySummary }).summary;

function historyShown(history: ContextReport["history"] | undefined, legacy: LegacySummary): string {
  if (history === undefined) {
    if (legacy?.given !== true) return "none";
    return legacy.included ? "summary or evidence, shown (recorded before the two were told apart)" : "left out: does not fit";
  }
  if (!history.given) return "none";
  if (!history.included) {
    if (history.reason === "shown") return "left out: the view shows every message it quotes";
    return history.reason === "evidence-share" ? "left out: no evidence excerpt fits evidenceShare" : "left out: does not fit";
  }
  const held = [history.summary ? "summary" : "", history.evidence ? "evidence" : ""].filter((part) => part !== "");
  return held.length > 0 ? held.join(" + ") : "shown (the application's message)";
}

/**
 * The counts of the view, named as in the report. A record made before issue 28 lacks
 * some of them: a verified rebuild gives them exactly; otherwise its own counts are shown.
 */
function messageFacts(recorded: Omit<ManagedReport, "elapsedMs">, rebuilt: ContextReport | undefined): Markup {
  const m = (recorded.messages as Partial<MessageCounts>).read !== undefined ? recorded.messages : rebuilt?.messages;
  if (m === undefined) {
    return html`${fact("Messages kept", `${count(recorded.messages.kept)} of ${count((recorded.messages as { in?: number }).in ?? 0)}`)}
  ${fact("Messages left out", recorded.messages.dropped, "recorded by an earlier version: every message given and not shown, the unread ones included")}
  ${fact("Messages unread", recorded.messages.unread, "older than the view read: never read, shown only when pinned")}`;
  }
  // Records made before a provider's compaction was counted have none; shown only when there is one.
  const compacted = m.providerCompacted ?? 0;
  const parts = compacted > 0 ? "summarized + compacted by the provider + read + unread" : "summarized + read + unread";
  const compactedHint = "before the latest provider compaction, which stands for them: never read nor sent";
  const compactedFact = compacted > 0 ? fact("Messages compacted by the provider", compacted, compactedHint) : null;
  return html`${fact("Messages in the checkpoint", m.inCheckpoint, parts)}
  ${fact("Messages summarized", m.summarized, "the oldest messages, which the summary shown stands for")}
  ${compactedFact}
  ${fact("Messages read", m.read, "from the newest back to where the budget was spent")}
  ${fact("Messages kept", m.kept, "shown in the view, pinned ones included")}
  ${fact("Messages dropped", m.dropped, "read and left out of the view; they remain in the checkpoint")}
  ${fact("Messages unread", m.unread, "older than the view read: never read, shown only when pinned")}`;
}

/**
 * The current turn's exchanges by form, and the form it was shown in; absent from records
 * made before the long-turn stages (the form: before it was reported).
 */
function currentTurnFact(report: Omit<ManagedReport, "elapsedMs">): Markup | null {
  const t = (report as Partial<ContextReport>).currentTurn;
  if (t === undefined) return null;
  const byForm = [t.kept, t.compacted, t.cleared, t.excerpted, t.summarized ?? 0].map(count).join(" / ");
  const label = "Current turn: exchanges kept / compacted / cleared / excerpted / summarized";
  const counts = fact(label, byForm, `of ${count(t.exchanges)}; the newest is always kept`);
  if (t.form === undefined) return counts;
  const form = fact("Current turn shown", CURRENT_TURN_FORM[t.form] ?? t.form, "the form chosen among the current turn's candidates (report.currentTurn.form)");
  return html`${counts}${form}`;
}

/** The current turn's form (`report.currentTurn.form`, absent from records made before it), in words. */
const CURRENT_TURN_FORM: Record<string, string> = {
  whole: "whole",
  shared: "with its results sharing the room by size",
  besideHistory: "with its results fitted beside the history",
  olderForm: "with its results as they stay once the turn ends",
  long: "as a long turn, older exchanges degraded in steps",
};

/** Why the recall stage brought nothing back, or what it brought instead of matches, in words. */
const RECALL_OUTCOME: Record<string, string> = {
  recent: "the newest messages left out (nothing outside the view matched the request)",
  off: "none: recall is off (recallBudget 0)",
  "nothing-left-out": "none: the view shows the whole conversation",
  "no-query": "none: the request has no word to search for",
  "all-in-view": "none: every word of the request is already in the view",
  "later-call": "none: after tool turns a brief comes on a turn's first call only",
  "no-room": "none: no room was left for it",
  "no-match": "none: nothing outside the view matches the request",
  none: "none",
};

/** What a call's compaction did, in words. */
const COMPACTION_KIND: Record<string, string> = {
  none: "none: everything fit",
  micro: "tool results cleared or compacted",
  summary: "older turns summarized",
  drop: "older turns left out (no summary)",
  "overflow-recovery": "rebuilt smaller after the provider refused the prompt as too long",
};

/** What the recall stage brought back, or why nothing; absent from records made before it. */
function recallFact(report: Omit<ManagedReport, "elapsedMs">): Markup | null {
  const r = (report as Partial<ContextReport>).recall;
  if (r === undefined) return null;
  const outcome = r.outcome ?? (r.recalled > 0 ? "recalled" : "none");
  const at = r.brief === true ? ", a brief" : "";
  const recent = outcome === "recent" ? `, ${RECALL_OUTCOME["recent"]}` : "";
  const listed = outcome === "recalled" || outcome === "recent";
  const shown = listed ? `${count(r.recalled)} (${count(r.tokens)} tokens${at}${recent})` : (RECALL_OUTCOME[outcome] ?? `none (${outcome})`);
  const meaning =
    "messages outside the view that match the request, in a block before the current turn " +
    "(after an agent's tool turns a brief, on the first call of the turn only)";
  return fact("Recalled messages", shown, meaning);
}

function decisions(report: Omit<ManagedReport, "elapsedMs">, rebuilt: ContextReport | undefined): Markup {
  const c = report.compaction;
  const history = (report as Partial<ContextReport>).history ?? rebuilt?.history;
  return html`<dl class="facts">
  ${messageFacts(report, rebuilt)}
  ${fact("Turns read / kept / dropped", `${count(report.turns.read)} / ${count(report.turns.kept)} / ${count(report.turns.dropped)}`, "the turns of unread messages are not counted")}
  ${fact("Tool results cleared", report.toolResults.cleared)}
  ${fact("Tool results compacted", report.toolResults.compacted)}
  ${fact("Tool results narrowed", report.toolResults.narrowed)}
  ${fact("Messages excerpted", report.excerpted)}
  ${fact("Images replaced", report.imagesReplaced)}
  ${fact("Dropped-turn excerpts", report.droppedTurnExcerpts)}
  ${currentTurnFact(report)}
  ${recallFact(report)}
  ${fact("History", historyShown(history, legacySummaryOf(report)), "the history slot after the system prompt: a summary, durable evidence, or both")}
  ${fact("Compaction", COMPACTION_KIND[c.kind] ?? c.kind)}
  ${fact("Summarizer calls", c.summarizerCalls)}
  ${fact("Summary cache hit", c.summaryCacheHit ? "yes" : "no")}
  ${c.summaryExcerpted === true ? fact("Summary shown", "a marked excerpt, cut to fit") : null}
  ${c.summarizerFailure ? fact("Summarizer failure", c.summarizerFailure) : null}
  ${fact("Orphan results / unfinished calls", `${count(report.orphanResults)} / ${count(report.unfinishedCalls)}`)}
  ${fact("Labels inserted", report.labelsInserted)}
  ${fact("Memories kept", `${count(report.memories.kept)} of ${count(report.memories.in)}`)}
</dl>`;
}

function compactedResults(call: InspectedCall): Markup | null {
  const rows = (call.rebuilt.view?.messages ?? []).flatMap((message) => {
    const marker = compactionMarkerOf(message);
    if (!marker) return [];
    const id = (message as { tool_call_id?: string }).tool_call_id ?? "";
    const name = (message as { name?: string }).name ?? "";
    const what =
      marker.form === "cleared"
        ? `cleared (about ${count(marker.originalTokens)} tokens)`
        : marker.form === "json"
          ? `${count(marker.omittedRows)} rows, ${count(marker.omittedChars)} characters omitted (limit ${count(marker.limitTokens)})`
          : marker.form === "narrowed"
            ? `narrowed to its totals (about ${count(marker.originalTokens)} tokens${marker.returnedRows === undefined ? "" : `, ${count(marker.returnedRows)} rows`})`
            : `${count(marker.omittedChars)} of ${count(marker.totalChars)} characters omitted`;
    return [html`<tr><td><code>${name}</code></td><td><code>${id}</code></td><td>${marker.form}</td><td>${what}</td></tr>`];
  });
  if (rows.length === 0) return null;
  return html`<h3>Compacted tool results</h3><table class="markers"><thead><tr><th>Tool</th><th>Call id</th><th>Form</th><th>Omitted</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function usage(call: InspectedCall): Markup {
  const estimated = call.record.report.tokens.total;
  const reported = call.usage?.inputTokens;
  return html`<dl class="facts">
  ${fact("Estimated prompt tokens", estimated)}
  ${fact("Prompt limit", call.record.report.limit)}
  ${fact("Reported input tokens", reported === undefined ? "not reported" : count(reported))}
  ${fact("Reported / estimated", reported === undefined || estimated === 0 ? "—" : (reported / estimated).toFixed(2))}
  ${fact("Calibration applied", call.record.report.compaction.calibration.toFixed(2), "actual/estimated ratio learnt from earlier answers")}
  ${call.usage?.outputTokens != null ? fact("Reported output tokens", call.usage.outputTokens) : null}
</dl>`;
}

function options(call: InspectedCall): Markup {
  const { budget, view, estimator } = call.record.options;
  const pairs = [...Object.entries(budget), ...Object.entries(view), ["estimator", estimator]] as [string, unknown][];
  // A manager that summarizes keeps every older result (the largest safe integer) until its summary.
  const shown = (k: string, v: unknown) => (k === "keepRecentToolResults" && v === EVERY_TOOL_RESULT ? "all (they wait for the summary)" : String(v));
  return html`<details class="options"><summary>Resolved options</summary><dl class="facts small">${pairs.map(([k, v]) => fact(k, shown(k, v)))}</dl></details>`;
}

/** The detail panel of one call. */
export function callDetail(call: InspectedCall): Markup {
  const { record, rebuilt } = call;
  const report = record.report;
  const when = new Date(record.recordedAt).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
  return html`<section class="call" id="${`call-${record.sequence}`}" data-call="${record.sequence}">
  <header class="call-head">
    <h2>Call ${record.sequence}</h2>
    <span class="meta">${record.source}${record.overflowRecovery ? " · overflow retry" : ""} · ${when} · ${count(record.messages.count)} checkpoint messages${call.checkpointId ? html` · checkpoint <code>${call.checkpointId}</code>` : null}</span>
  </header>
  <div class="${`status status-${rebuilt.status}`}"><b>${rebuilt.status === "match" ? "Verified" : rebuilt.status === "mismatch" ? "Mismatch" : "Unverifiable"}</b> ${STATUS_TEXT[rebuilt.status]}${
    rebuilt.problems.length > 0 ? html`<ul class="problems">${rebuilt.problems.map((p) => html`<li>${p}</li>`)}</ul>` : null
  }</div>
  <h3>Budget</h3>
  ${budgetBar(report.tokens, report.limit, "large")}
  ${budgetLegend(report.tokens, report.limit)}
  <h3>What the view did</h3>
  ${decisions(report, rebuilt.status === "match" ? rebuilt.view?.report : undefined)}
  ${compactedResults(call)}
  <h3>Estimated vs reported usage</h3>
  ${usage(call)}
  <div class="inputs">
    <div><h3>Summary in effect</h3>${rebuilt.summaryText === null ? html`<p class="empty">No summary.</p>` : html`<pre class="content">${rebuilt.summaryText}</pre>`}</div>
    <div><h3>Evidence in effect</h3>${rebuilt.evidenceText === null ? html`<p class="empty">No evidence.</p>` : evidenceEntries(rebuilt.evidenceText)}</div>
  </div>
  ${options(call)}
  <h3>Messages as the model got them</h3>
  ${rebuilt.view ? viewMessages(rebuilt.view.messages, rebuilt.view.report, record, { historyMessage: rebuilt.historyMessage, summary: rebuilt.summaryText !== null }) : html`<p class="empty">Not available: the view could not be rebuilt.</p>`}
</section>`;
}
