import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { inspectThread } from "./inspect-thread.js";
import { renderIndexPage } from "./page/render-index.js";
import { pageShell, renderThreadPage } from "./page/render-thread.js";
import { html } from "./page/html.js";
import type { InspectSources } from "./sources.js";

/** A running `--serve` server. */
export interface InspectorServer {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  close(): Promise<void>;
}

const threadLink = (threadId: string, userId: string) => `/thread?thread=${encodeURIComponent(threadId)}&user=${encodeURIComponent(userId)}`;

/**
 * Serves the thread list (`/`) and thread pages (`/thread?thread=ID&user=ID`) on
 * 127.0.0.1 only; each page is rebuilt from the checkpoints on every request.
 *
 * @example
 * ```ts
 * const server = await serveInspector(openSqliteSources({ checkpoints: "data/checkpoints.sqlite" }), { port: 0 });
 * console.log(server.url);
 * ```
 */
export async function serveInspector(sources: InspectSources, options: { port?: number; defaultUser?: string } = {}): Promise<InspectorServer> {
  const send = (res: import("node:http").ServerResponse, status: number, body: string) => {
    res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff" });
    res.end(body);
  };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    void (async () => {
      try {
        if (url.pathname === "/") {
          const threads = await sources.listThreads();
          const withUsers = threads.map((t) => (t.userIds.length === 0 && options.defaultUser ? { ...t, userIds: [options.defaultUser] } : t));
          send(res, 200, renderIndexPage(withUsers, threadLink));
        } else if (url.pathname === "/thread") {
          const threadId = url.searchParams.get("thread") ?? "";
          const userId = url.searchParams.get("user") ?? options.defaultUser ?? "";
          const thread = await inspectThread({ checkpointer: sources.checkpointer, store: sources.store, threadId, userId });
          send(res, 200, renderThreadPage(thread, { backLink: "/" }));
        } else send(res, 404, pageShell("Not found", html`<p class="panel">Not found. <a href="/">All threads</a></p>`));
      } catch (error) {
        send(res, 500, pageShell("Error", html`<div class="panel"><h2>Could not inspect</h2><pre class="content">${(error as Error).message}</pre><a href="/">All threads</a></div>`));
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export { threadLink };
