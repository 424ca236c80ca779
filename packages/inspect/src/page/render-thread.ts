import type { InspectedThread } from "../inspect-thread.js";
import { budgetBar } from "./budget-bar.js";
import { threadChart } from "./thread-chart.js";
import { callDetail } from "./call-detail.js";
import { count, html, trusted, type Markup } from "./html.js";
import { BUDGET_PARTS } from "./parts.js";
import { SCRIPT } from "./script.js";
import { STYLES } from "./styles.js";

/** A whole page around a body: inline CSS and script, a CSP that forbids every network load. */
export function pageShell(title: string, body: Markup, attributes: { initial?: number } = {}): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${title}</title>
<style>${trusted(STYLES)}</style></head>
<body${attributes.initial === undefined ? null : html` data-initial="${attributes.initial}"`}>
${body}
<script>${trusted(SCRIPT)}</script>
</body></html>
`.value;
}

/** Says which model calls have no record, and the likely reasons. */
function missingNote(thread: InspectedThread): Markup | null {
  if (thread.missing.length === 0) return null;
  const where = thread.missing.map((gap) => `message ${count(gap.messageIndex)} (after call ${gap.after})`).join(", ");
  const calls = `${count(thread.missing.length)} model ${thread.missing.length === 1 ? "call" : "calls"}`;
  return html`<p class="status status-mismatch"><b>Record missing</b> for ${calls}: the checkpoint holds a model answer at ${where},
but the store kept no view record of the call, so this page cannot show what the model saw then. The store failed to write it
(logged as <code>context_view_record_error</code>), or the graph wrote that AI message without a model call.</p>`;
}

/**
 * The inspector's page of one thread: one self-contained HTML file (inline CSS,
 * script and SVG; nothing loaded from the network; every message escaped).
 *
 * @example
 * ```ts
 * writeFileSync("report.html", renderThreadPage(await inspectThread({ checkpointer, store, threadId: "t-1", userId: "u-1" })));
 * ```
 */
export function renderThreadPage(thread: InspectedThread, options: { backLink?: string } = {}): string {
  const { calls } = thread;
  const statuses = { match: 0, mismatch: 0, unverifiable: 0 };
  for (const call of calls) statuses[call.rebuilt.status]++;
  const firstProblem = calls.find((call) => call.rebuilt.status !== "match");
  const missing = thread.missing.length;
  const missingPill = missing > 0 ? html`<span class="pill pill-mismatch">${missing} ${missing === 1 ? "record" : "records"} missing</span>` : null;
  const gapsAfter = new Map<number, number[]>();
  for (const gap of thread.missing) gapsAfter.set(gap.after, [...(gapsAfter.get(gap.after) ?? []), gap.messageIndex]);
  const gapRows = (sequence: number) =>
    (gapsAfter.get(sequence) ?? []).map(
      (index) =>
        html`<li class="missing-row" title="${`The model answered at checkpoint message ${index}, but the store kept no view record of that call`}">${
          `record missing · answer at message ${count(index)}`
        }</li>`,
    );
  const rows = calls.map((call) => {
    const r = call.record.report;
    return html`<li><a class="row" href="${`#call-${call.record.sequence}`}" data-call="${call.record.sequence}">
  <span class="n">${call.record.sequence}</span>
  <span class="info">${budgetBar(r.tokens, r.limit, "small")}<span class="line"><span>${count(r.tokens.total)} / ${count(r.limit)}</span><span>${r.compaction.kind}${call.summaryChanged && call.rebuilt.summaryText !== null ? " · new summary" : ""}</span></span></span>
  <span class="${`pill pill-${call.rebuilt.status}`}">${call.rebuilt.status === "match" ? "✓" : call.rebuilt.status === "mismatch" ? "≠" : "?"}</span>
</a></li>`;
  });
  // Each missing record is listed after the recorded call before it.
  const list = calls.map((call, i) => html`${rows[i]}${gapRows(call.record.sequence)}`);
  const keys = html`<ul class="keys">${BUDGET_PARTS.map((p) => html`<li><span class="swatch" style="${`background:${p.color}`}"></span>${p.label}</li>`)}<li>- - prompt limit</li><li>● reported input tokens</li><li><b style="color:#047857">S</b> summary changed</li><li><b style="color:#7c3aed">E</b> evidence changed</li><li><b style="color:#b91c1c">!</b> not verified</li></ul>`;
  const body = html`<header class="top">
  <h1>contextview inspector</h1>
  <span class="sub">thread <code>${thread.threadId}</code> · user <code>${thread.userId}</code> · ${count(calls.length)} model calls · ${count(thread.checkpoints)} checkpoints read · ${count(thread.messages)} messages</span>
  <span class="sum"><span class="pill pill-match">${statuses.match} verified</span> ${
    statuses.mismatch > 0 ? html`<span class="pill pill-mismatch">${statuses.mismatch} mismatch</span>` : null
  } ${statuses.unverifiable > 0 ? html`<span class="pill pill-unverifiable">${statuses.unverifiable} unverifiable</span>` : null} ${missingPill}</span>
  ${options.backLink ? html`<a href="${options.backLink}" style="color:#93c5fd">all threads</a>` : null}
</header>
<main>
  <div class="panel overview"><h2>Tokens per call against the limit</h2>${threadChart(calls)}${keys}${missingNote(thread)}</div>
  <nav class="panel calls"><h2>Calls</h2><ol>${list}</ol></nav>
  <div class="panel detail">${calls.length === 0 ? html`<p class="empty">This thread has no recorded model calls. Views are recorded by @contextview/langgraph when the store keeps view records.</p>` : calls.map(callDetail)}</div>
</main>`;
  return pageShell(`contextview · ${thread.threadId}`, body, firstProblem ? { initial: firstProblem.record.sequence } : {});
}
