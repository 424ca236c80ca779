import { count, html } from "./html.js";
import { pageShell } from "./render-thread.js";

/** A thread as the thread list shows it. */
export interface ThreadSummary {
  threadId: string;
  /** Users with view records in this thread. */
  userIds: string[];
  checkpoints: number;
}

/**
 * The thread list of `contextview inspect --serve`: each thread links to its page.
 *
 * @example
 * ```ts
 * renderIndexPage([{ threadId: "t-1", userIds: ["u-1"], checkpoints: 12 }], (t, u) => `/thread?thread=${t}&user=${u}`);
 * ```
 */
export function renderIndexPage(threads: readonly ThreadSummary[], linkOf: (threadId: string, userId: string) => string): string {
  const rows = threads.map(
    (t) =>
      html`<tr><td><code>${t.threadId}</code></td><td>${count(t.checkpoints)}</td><td>${
        t.userIds.length === 0 ? html`<span class="empty">no view records</span>` : t.userIds.map((u) => html`<a href="${linkOf(t.threadId, u)}">${u}</a> `)
      }</td></tr>`,
  );
  const body = html`<header class="top"><h1>contextview inspector</h1><span class="sub">${count(threads.length)} threads</span></header>
<div class="threads panel"><table><thead><tr><th>Thread</th><th>Checkpoints</th><th>Open as user</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  return pageShell("contextview · threads", body);
}
