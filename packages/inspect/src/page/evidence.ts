import { EVIDENCE_BUCKETS } from "@contextview/core/internal";
import { count, html, type Markup } from "./html.js";

const BUCKET_LABELS: Readonly<Record<string, string>> = { constraints: "Constraints", decisions: "Decisions", openWork: "Open work", recentContext: "Recent context" };

interface Entry {
  role?: unknown;
  index?: unknown;
  excerpt?: unknown;
}

/**
 * The evidence in effect, as its entries per bucket when it is contextview's
 * evidence envelope, or as its text otherwise. Excerpts are shown as text.
 */
export function evidenceEntries(text: string): Markup {
  let envelope: Record<string, unknown> | undefined;
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const inner = parsed["contextview_evidence"];
    if (typeof inner === "object" && inner !== null) envelope = inner as Record<string, unknown>;
  } catch {
    envelope = undefined;
  }
  if (envelope === undefined) return html`<pre class="content">${text}</pre>`;
  const buckets = EVIDENCE_BUCKETS.map((bucket) => {
    const entries = Array.isArray(envelope[bucket]) ? (envelope[bucket] as Entry[]) : [];
    if (entries.length === 0) return null;
    return html`<li><b>${BUCKET_LABELS[bucket] ?? bucket}</b> <small>${entries.length}</small><ul>${entries.map(
      (e) => html`<li><span class="who">${String(e.role ?? "")} · message ${typeof e.index === "number" ? count(e.index + 1) : "?"}</span> ${String(e.excerpt ?? "")}</li>`,
    )}</ul></li>`;
  }).filter((b) => b !== null);
  const omitted = typeof envelope["omitted"] === "number" && envelope["omitted"] > 0 ? html`<p class="empty">${count(envelope["omitted"])} older excerpts no longer fit.</p>` : null;
  const unreadable =
    typeof envelope["unreadable"] === "number" && envelope["unreadable"] > 0 ? html`<p class="empty">${count(envelope["unreadable"])} earlier messages were too large to read (over <code>maxMessageBytes</code>).</p>` : null;
  if (buckets.length === 0) return html`<p class="empty">Evidence given, with no entries yet (covers messages 1–${count(Number(envelope["cursor"] ?? 0))}).</p>${unreadable}`;
  return html`<ul class="evidence">${buckets}</ul>${omitted}${unreadable}`;
}
