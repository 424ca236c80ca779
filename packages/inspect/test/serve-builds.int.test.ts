import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openSqliteSources, serveInspector, type InspectorServer, type InspectSources } from "@contextview/inspect";
import { runFinanceThread, useTempDir } from "./support/finance-thread";

/** Resolves once `count()` reaches `n`; `poke()` re-checks (called by the spies below, never on a timer). */
function waiter(count: () => number) {
  const waiting: { n: number; resolve: () => void }[] = [];
  return {
    until: (n: number) => new Promise<void>((resolve) => (count() >= n ? resolve() : waiting.push({ n, resolve }))),
    poke: () => {
      for (const w of waiting.splice(0)) {
        if (count() >= w.n) w.resolve();
        else waiting.push(w);
      }
    },
  };
}

/** Every promise callback queued so far has run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("contextview inspect --serve: page builds", () => {
  const dir = useTempDir();
  let file: string;
  let real: InspectSources;
  let server: InspectorServer | undefined;
  // Every page build reads the view records once, first: a call of listViews is a build.
  let builds = 0;
  let versions = 0;
  let gate: Promise<void> | undefined;
  const buildsSeen = waiter(() => builds);
  const versionsSeen = waiter(() => versions);

  const start = async () => {
    const sources: InspectSources = {
      ...real,
      store: {
        listViews: async (...args) => {
          builds++;
          buildsSeen.poke();
          await gate;
          return (real.store.listViews as NonNullable<typeof real.store.listViews>)(...args);
        },
      },
      versionOf: async (threadId, userId) => {
        const version = await (real.versionOf as NonNullable<InspectSources["versionOf"]>)(threadId, userId);
        versions++;
        versionsSeen.poke();
        return version;
      },
    };
    server = await serveInspector(sources, { port: 0 });
    return server;
  };

  beforeAll(async () => {
    mkdirSync(join(dir(), "run"));
    ({ file } = await runFinanceThread(join(dir(), "run"), { turns: 2, threadId: "t-builds" }));
    real = openSqliteSources({ checkpoints: file });
  });
  beforeEach(() => {
    builds = 0;
    versions = 0;
    gate = undefined;
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  afterAll(async () => {
    await real?.close();
  });

  it("builds a page once per version of the thread: a second request is served from memory, a new record builds it again", async () => {
    const { pageUrl } = await start();
    const first = await fetch(pageUrl("t-builds", "alice"));
    expect(first.status).toBe(200);
    const page = await first.text();
    expect(page).toContain('<section class="call" id="call-1" data-call="1">');
    expect(builds).toBe(1);
    const again = await fetch(pageUrl("t-builds", "alice"));
    expect(await again.text()).toBe(page);
    expect(builds).toBe(1);

    // The newest record goes (as eviction or a deletion would): the version moves, the page is built again.
    const store = new Database(join(dir(), "run", "checkpoints.contextview.sqlite"));
    store.prepare("DELETE FROM contextview_views WHERE sequence = (SELECT MAX(sequence) FROM contextview_views)").run();
    store.close();
    const changed = await fetch(pageUrl("t-builds", "alice"));
    expect(changed.status).toBe(200);
    expect(await changed.text()).not.toBe(page);
    expect(builds).toBe(2);
  });

  it("shares one build among identical requests, runs one build at a time, and answers / while a build runs", async () => {
    const { url, pageUrl } = await start();
    let release = (): void => undefined;
    gate = new Promise<void>((resolve) => (release = resolve));

    const a1 = fetch(pageUrl("t-builds", "alice"));
    await buildsSeen.until(1);
    const a2 = fetch(pageUrl("t-builds", "alice"));
    await versionsSeen.until(2);
    await settle();
    const b = fetch(pageUrl("t-builds", "bob"));
    await versionsSeen.until(3);
    await settle();
    // a2 waits for a1's build; b's build waits for its turn.
    expect(builds).toBe(1);

    const index = await fetch(url);
    expect(index.status).toBe(200);
    expect(await index.text()).toContain("<code>t-builds</code>");
    expect(builds).toBe(1);

    release();
    const [r1, r2, rb] = await Promise.all([a1, a2, b]);
    expect([r1.status, r2.status, rb.status]).toEqual([200, 200, 200]);
    expect(await r2.text()).toBe(await r1.text());
    expect(await rb.text()).toContain("user <code>bob</code>");
    expect(builds).toBe(2);
  });

  it("refuses a page another site asks for (an <img> on a web page) and one without Sec-Fetch-Site or the server's key, building nothing", async () => {
    const { url, pageUrl } = await start();
    const keyed = pageUrl("t-builds", "alice");
    const bare = `${url}thread?thread=t-builds&user=alice`;
    for (const [label, address, site] of [
      ["page with key", keyed, "cross-site"],
      ["page with key", keyed, "same-site"],
      ["page", bare, "cross-site"],
      ["page", bare, undefined],
      ["thread list", url, "cross-site"],
    ] as const) {
      const res = await fetch(address, { headers: site === undefined ? {} : { "sec-fetch-site": site } });
      // The request is named in the comparison, so a failure says which one.
      expect({ label, site, status: res.status }).toEqual({ label, site, status: 403 });
      expect(await res.text()).not.toContain('<section class="call"');
    }
    expect(builds).toBe(0);
    // A browser's own navigation (typed address, bookmark: none) or a link of the inspector (same-origin) needs no key.
    for (const site of ["none", "same-origin"]) expect((await fetch(bare, { headers: { "sec-fetch-site": site } })).status).toBe(200);
    expect(builds).toBe(1);
  });
});
