import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { openSqliteSources, serveInspector, type InspectorServer, type InspectSources } from "@contextview/inspect";
import { runFinanceThread, useTempDir } from "./support/finance-thread";


describe("contextview inspect --serve", () => {
  const dir = useTempDir();
  let server: InspectorServer;
  let sources: InspectSources;

  beforeAll(async () => {
    mkdirSync(join(dir(), "run"));
    const { file } = await runFinanceThread(join(dir(), "run"), { turns: 2, threadId: "t-serve" });
    sources = openSqliteSources({ checkpoints: file });
    server = await serveInspector(sources, { port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await sources?.close();
  });

  it("listens on 127.0.0.1 only, lists threads, then shows a thread", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const index = await fetch(server.url);
    expect(index.status).toBe(200);
    const list = await index.text();
    expect(list).toContain("<code>t-serve</code>");
    const link = /href="(\/thread\?thread=t-serve&amp;user=alice&amp;key=[\w-]+)"/.exec(list)?.[1];
    expect(link).toBeDefined();
    const thread = await fetch(new URL((link as string).replace(/&amp;/g, "&"), server.url));
    expect(thread.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const page = await thread.text();
    expect(page).toContain('<section class="call" id="call-1" data-call="1">');
    expect(page).toMatch(/\d+ verified/);
  });

  it("answers an unknown thread with an error page, and an unknown path with 404", async () => {
    const missing = await fetch(server.pageUrl("<script>", "alice"));
    expect(missing.status).toBe(500);
    expect(await missing.text()).toContain("No checkpoints and no view records for thread &quot;&lt;script&gt;&quot;");
    expect((await fetch(`${server.url}nope`)).status).toBe(404);
  });
});
