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

/**
 * Whether a request's `Host` header names this loopback server: `localhost`,
 * any `127.x.x.x` or `[::1]`, with no port or with `port`. Anything else (a
 * DNS-rebinding page sends its own name, e.g. `attacker.example`) is refused.
 */
function isLoopbackHost(host: string | undefined, port: number): boolean {
  if (!host) return false;
  const match = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::(\d+))?$/i.exec(host.trim());
  if (!match) return false;
  if (match[1]!.startsWith("127") && match[1]!.split(".").some((octet) => Number(octet) > 255)) return false;
  return match[2] === undefined || Number(match[2]) === port;
}

const threadLink = (threadId: string, userId: string) => `/thread?thread=${encodeURIComponent(threadId)}&user=${encodeURIComponent(userId)}`;

/**
 * Serves the thread list (`/`) and thread pages (`/thread?thread=ID&user=ID`) on
 * 127.0.0.1 only; each page is rebuilt from the checkpoints on every request.
 * Only `GET` and `HEAD` are answered (others get 405 with `Allow`), and only
 * when the `Host` header is `localhost`, `127.x.x.x` or `[::1]` (with no port
 * or the served one); any other Host gets 421, so a DNS-rebinding web page
 * cannot read threads.
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
  let port = 0;
  const server: Server = createServer((req, res) => {
    if (!isLoopbackHost(req.headers.host, port)) {
      send(res, 421, pageShell("Misdirected request", html`<p class="panel">This inspector answers only requests for localhost, 127.0.0.1 or [::1].</p>`));
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("allow", "GET, HEAD");
      send(res, 405, pageShell("Method not allowed", html`<p class="panel">Only GET and HEAD are allowed.</p>`));
      return;
    }
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
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export { threadLink };
