import type { TokenReport } from "@contextview/core";
import { BUDGET_PARTS } from "./parts.js";
import { count, html, type Markup } from "./html.js";

/**
 * A stacked bar of the view's estimated tokens per part against the prompt limit:
 * the bar's full width is the limit (or the total when over it), with the limit marked.
 */
export function budgetBar(tokens: TokenReport, limit: number, size: "small" | "large"): Markup {
  const scale = Math.max(limit, tokens.total, 1);
  const segments = BUDGET_PARTS.filter((part) => tokens[part.key] > 0).map(
    (part) =>
      html`<span class="seg" style="${`width:${((100 * tokens[part.key]) / scale).toFixed(3)}%;background:${part.color}`}" title="${`${part.label}: ${count(tokens[part.key])} tokens`}"></span>`,
  );
  const limitAt = ((100 * limit) / scale).toFixed(3);
  return html`<div class="${`budget budget-${size}`}" role="img" aria-label="${`${count(tokens.total)} of ${count(limit)} estimated tokens`}">${segments}<span class="limit" style="${`left:${limitAt}%`}" title="${`limit ${count(limit)}`}"></span></div>`;
}

/** The legend of {@link budgetBar}, with each part's tokens and share of the limit. */
export function budgetLegend(tokens: TokenReport, limit: number): Markup {
  const items = BUDGET_PARTS.map(
    (part) =>
      html`<li><span class="swatch" style="${`background:${part.color}`}"></span>${part.label}<b>${count(tokens[part.key])}</b><small>${((100 * tokens[part.key]) / Math.max(limit, 1)).toFixed(1)}%</small></li>`,
  );
  return html`<ul class="legend">${items}<li class="total">Total<b>${count(tokens.total)}</b><small>of ${count(limit)}</small></li></ul>`;
}
