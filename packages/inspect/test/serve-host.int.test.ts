import { mkdirSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { openSqliteSources, serveInspector, type InspectorServer, type InspectSources } from "@contextview/inspect";
import { runFinanceThread, useTempDir } from "./support/finance-thread";


interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One raw request to 127.0.0.1:port with exactly the given Host header (fetch cannot forge Host). */
function rawRequest(port: number, options: { host: string; path: string; method?: string }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: options.path, method: options.method ?? "GET", headers: { host: options.host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("contextview inspect --serve: Host and method checks", () => {
  const dir = useTempDir();
  let server: InspectorServer;
  let sources: InspectSources;
  let port: number;
  let threadPath: string;
  const threadMarker = '<section class="call" id="call-1" data-call="1">';

  beforeAll(async () => {
    mkdirSync(join(dir(), "run"));
    const { file } = await runFinanceThread(join(dir(), "run"), { turns: 1, threadId: "t-host" });
    sources = openSqliteSources({ checkpoints: file });
    server = await serveInspector(sources, { port: 0 });
    port = Number(new URL(server.url).port);
    // With the server's key: node's http sends no Sec-Fetch-Site.
    const page = new URL(server.pageUrl("t-host", "alice"));
    threadPath = `${page.pathname}${page.search}`;
  });
  afterAll(async () => {
    await server?.close();
    await sources?.close();
  });

  it.each(["attacker.example", "attacker.example:PORT", "127.0.0.1.attacker.example", "localhost.attacker.example", "[::2]", "999.0.0.1"])(
    "refuses a forged Host %s (DNS rebinding) with 421 and no thread content",
    async (host) => {
      for (const path of [threadPath, "/"]) {
        const res = await rawRequest(port, { host: host.replace("PORT", String(port)), path });
        expect(res.status).toBe(421);
        expect(res.body).not.toContain(threadMarker);
        expect(res.body).not.toContain("t-host");
      }
    },
  );

  it("refuses a loopback Host with another port", async () => {
    const res = await rawRequest(port, { host: `localhost:${port + 1}`, path: threadPath });
    expect(res.status).toBe(421);
    expect(res.body).not.toContain(threadMarker);
  });

  it.each(["localhost:PORT", "127.0.0.1:PORT", "127.1.2.3:PORT", "[::1]:PORT", "localhost", "LOCALHOST:PORT"])("serves the thread page for Host %s", async (host) => {
    const res = await rawRequest(port, { host: host.replace("PORT", String(port)), path: threadPath });
    expect(res.status).toBe(200);
    expect(res.body).toContain(threadMarker);
  });

  it("answers HEAD without a body", async () => {
    const res = await rawRequest(port, { host: `127.0.0.1:${port}`, path: threadPath, method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.body).toBe("");
  });

  it.each(["POST", "PUT", "DELETE"])("refuses %s with 405 and an Allow header", async (method) => {
    const res = await rawRequest(port, { host: `127.0.0.1:${port}`, path: threadPath, method });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("GET, HEAD");
    expect(res.body).not.toContain(threadMarker);
  });
});
