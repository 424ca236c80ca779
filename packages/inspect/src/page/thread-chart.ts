import type { InspectedCall } from "../inspect-thread.js";
import { BUDGET_PARTS } from "./parts.js";
import { count, html, type Markup } from "./html.js";

const WIDTH = 1000;
const HEIGHT = 220;
const PAD = { left: 52, right: 12, top: 34, bottom: 26 };

/**
 * The whole thread at a glance: per call, the estimated tokens stacked by part,
 * the prompt limit (a line: calibration may move it), reported input tokens
 * (dots), and where a summary (S) or the evidence (E) changed. Each column
 * selects its call.
 */
export function threadChart(calls: readonly InspectedCall[]): Markup {
  if (calls.length === 0) return html`<p class="empty">No recorded calls.</p>`;
  const top = Math.max(...calls.map((c) => Math.max(c.record.report.limit, c.record.report.tokens.total, c.usage?.inputTokens ?? 0)), 1);
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const step = plotW / calls.length;
  const barW = Math.max(1, Math.min(step * 0.78, 28));
  const y = (tokens: number) => PAD.top + plotH - (plotH * tokens) / top;
  const columns = calls.map((call, i) => {
    const { tokens, limit } = call.record.report;
    const x = PAD.left + i * step + (step - barW) / 2;
    let base = 0;
    const rects = BUDGET_PARTS.filter((p) => tokens[p.key] > 0).map((part) => {
      const from = base;
      base += tokens[part.key];
      return html`<rect x="${x.toFixed(2)}" y="${y(base).toFixed(2)}" width="${barW.toFixed(2)}" height="${(y(from) - y(base)).toFixed(2)}" fill="${part.color}"/>`;
    });
    const marks = [
      call.summaryChanged && call.rebuilt.summaryText !== null ? html`<text class="mark mark-s" x="${(x + barW / 2).toFixed(2)}" y="12">S</text>` : null,
      call.evidenceChanged && call.record.inputs.evidence !== null ? html`<text class="mark mark-e" x="${(x + barW / 2).toFixed(2)}" y="25">E</text>` : null,
      call.usage ? html`<circle class="usage" cx="${(x + barW / 2).toFixed(2)}" cy="${y(call.usage.inputTokens).toFixed(2)}" r="3"/>` : null,
      call.rebuilt.status !== "match" ? html`<text class="mark mark-x" x="${(x + barW / 2).toFixed(2)}" y="${(HEIGHT - 4).toFixed(2)}">!</text>` : null,
    ];
    const title = `Call ${call.record.sequence}: ${count(tokens.total)} / ${count(limit)} tokens${call.usage ? `, reported ${count(call.usage.inputTokens)}` : ""}, ${call.record.report.compaction.kind}, ${call.rebuilt.status}`;
    return html`<g class="col" data-call="${call.record.sequence}"><title>${title}</title><rect class="hit" x="${(PAD.left + i * step).toFixed(2)}" y="0" width="${step.toFixed(2)}" height="${PAD.top + plotH}"/>${rects}${marks}</g>`;
  });
  const limitPoints = calls
    .map((call, i) => `${(PAD.left + i * step).toFixed(2)},${y(call.record.report.limit).toFixed(2)} ${(PAD.left + (i + 1) * step).toFixed(2)},${y(call.record.report.limit).toFixed(2)}`)
    .join(" ");
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const value = Math.round(top * f);
    return html`<g class="tick"><line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(value).toFixed(2)}" y2="${y(value).toFixed(2)}"/><text x="${PAD.left - 6}" y="${(y(value) + 4).toFixed(2)}">${count(value)}</text></g>`;
  });
  const every = Math.max(1, Math.ceil(calls.length / 20));
  const labels = calls
    .map((call, i) => (i % every === 0 || i === calls.length - 1 ? html`<text class="xlabel" x="${(PAD.left + (i + 0.5) * step).toFixed(2)}" y="${HEIGHT - 8}">${call.record.sequence}</text>` : null))
    .filter((label) => label !== null);
  return html`<svg class="chart" viewBox="${`0 0 ${WIDTH} ${HEIGHT}`}" role="img" aria-label="Estimated tokens per call against the prompt limit">${ticks}${columns}<polyline class="limitline" points="${limitPoints}"/>${labels}</svg>`;
}
