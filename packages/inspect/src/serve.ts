import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { InspectError } from "./errors.js";
import { inspectThread } from "./inspect-thread.js";
import { PageBuilds } from "./page-builds.js";
import { renderIndexPage } from "./page/render-index.js";
import { pageShell, renderThreadPage } from "./page/render-thread.js";
import { html } from "./page/html.js";
import type { InspectSources } from "./sources.js";

/** A running `--serve` server. */
export interface InspectorServer {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  /**
   * The address of a thread's page with this server's key, which opens it from any client
   * (a browser without `Sec-Fetch-Site`, curl); the key changes with every server.
   */
  pageUrl(threadId: string, userId: string): string;
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

const threadLink = (threadId: string, userId: string, key: string) =>
  `/thread?thread=${encodeURIComponent(threadId)}&user=${encodeURIComponent(userId)}&key=${encodeURIComponent(key)}`;

/** Whether `given` is the server's key, in time that does not depend on where they differ. */
function isKey(given: string | null, key: string): boolean {
  if (given === null) return false;
  const [a, b] = [Buffer.from(given), Buffer.from(key)];
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Where a browser says a request comes from (`Sec-Fetch-Site`): `page` for a typed
 * address, a bookmark or a link of this server; `foreign` for any other site (an
 * `<img>` or link on a web page); `unknown` when the header is absent (curl, scripts,
 * browsers that do not send it).
 */
function originOf(req: IncomingMessage): "page" | "foreign" | "unknown" {
  const site = req.headers["sec-fetch-site"];
  if (site === undefined) return "unknown";
  return site === "same-origin" || site === "none" ? "page" : "foreign";
}

/**
 * Serves the thread list (`/`) and thread pages (`/thread?thread=ID&user=ID`) on
 * 127.0.0.1 only. Only `GET` and `HEAD` are answered (others get 405 with `Allow`),
 * and only when the `Host` header is `localhost`, `127.x.x.x` or `[::1]` (with no
 * port or the served one); any other Host gets 421, so a DNS-rebinding web page
 * cannot read threads. A request another site makes (`Sec-Fetch-Site` `cross-site`
 * or `same-site`, such as an `<img>` on a web page) gets 403 and starts nothing; a
 * thread page asked without `Sec-Fetch-Site` needs the server's key, which the links
 * of `/` and {@link InspectorServer.pageUrl} carry.
 *
 * A page is built once per version of its thread (the newest checkpoint and view
 * record, when the sources tell it: `versionOf`) and then served from memory; one
 * build runs at a time, requests for a page being built wait for that build, 8 more
 * may wait (then 503), and a build yields to the event loop, so `/` answers meanwhile.
 *
 * @example
 * ```ts
 * const server = await serveInspector(openSqliteSources({ checkpoints: "data/checkpoints.sqlite" }), { port: 0 });
 * console.log(server.url, server.pageUrl("t-1", "u-1"));
 * ```
 */
export async function serveInspector(sources: InspectSources, options: { port?: number; defaultUser?: string } = {}): Promise<InspectorServer> {
  const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff", ...headers });
    res.end(body);
  };
  const key = randomBytes(18).toString("base64url");
  const build = async (threadId: string, userId: string) =>
    renderThreadPage(await inspectThread({ checkpointer: sources.checkpointer, store: sources.store, threadId, userId }), { backLink: "/" });
  const pages = new PageBuilds(build, sources.versionOf?.bind(sources));
  let port = 0;
  const server: Server = createServer((req, res) => {
    if (!isLoopbackHost(req.headers.host, port)) {
      send(res, 421, pageShell("Misdirected request", html`<p class="panel">This inspector answers only requests for localhost, 127.0.0.1 or [::1].</p>`));
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      send(res, 405, pageShell("Method not allowed", html`<p class="panel">Only GET and HEAD are allowed.</p>`), { allow: "GET, HEAD" });
      return;
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const origin = originOf(req);
    if (origin === "foreign" || (url.pathname === "/thread" && origin === "unknown" && !isKey(url.searchParams.get("key"), key))) {
      const why = origin === "foreign" ? "another site asked for it" : "it has no Sec-Fetch-Site header and not this server's key";
      const body = html`<p class="panel">Refused: ${why}.
Open the inspector from its address, <a href="/">the thread list</a>, or the link the command printed.</p>`;
      send(res, 403, pageShell("Forbidden", body));
      return;
    }
    void (async () => {
      try {
        if (url.pathname === "/") {
          const threads = await sources.listThreads();
          const withUsers = threads.map((t) => (t.userIds.length === 0 && options.defaultUser ? { ...t, userIds: [options.defaultUser] } : t));
          send(res, 200, renderIndexPage(withUsers, (threadId, userId) => threadLink(threadId, userId, key)));
        } else if (url.pathname === "/thread") {
          const threadId = url.searchParams.get("thread") ?? "";
          const userId = url.searchParams.get("user") ?? options.defaultUser ?? "";
          send(res, 200, await pages.page(threadId, userId));
        } else send(res, 404, pageShell("Not found", html`<p class="panel">Not found. <a href="/">All threads</a></p>`));
      } catch (error) {
        const busy = InspectError.isInstance(error) && error.code === "BUSY";
        const body = html`<div class="panel"><h2>Could not inspect</h2><pre class="content">${(error as Error).message}</pre><a href="/">All threads</a></div>`;
        send(res, busy ? 503 : 500, pageShell("Error", body), busy ? { "retry-after": "5" } : {});
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/`,
    pageUrl: (threadId, userId) => `${base}${threadLink(threadId, userId, key)}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
