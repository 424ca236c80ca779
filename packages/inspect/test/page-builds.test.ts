import { InspectError } from "@contextview/inspect";
import { PageBuilds } from "../src/page-builds.js";

/** A build per call, each finished by hand: `finish(i, page)`. */
function manualBuilds() {
  const started: { threadId: string; finish: (page: string) => void; fail: (error: Error) => void }[] = [];
  const build = (threadId: string) =>
    new Promise<string>((resolve, reject) => {
      started.push({ threadId, finish: resolve, fail: reject });
    });
  return { started, build };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("PageBuilds", () => {
  it("runs one build at a time, in the order asked, refuses beyond the waiting ones with BUSY, and shares a build among identical requests", async () => {
    const { started, build } = manualBuilds();
    const pages = new PageBuilds(build, async () => "v1", { running: 1, waiting: 1, cachedChars: 1000 });
    const a = pages.page("a", "u");
    const again = pages.page("a", "u");
    const b = pages.page("b", "u");
    await settle();
    expect(started.map((s) => s.threadId)).toEqual(["a"]);
    const refused = await pages.page("c", "u").catch((error: unknown) => error);
    expect(InspectError.isInstance(refused) && refused.code).toBe("BUSY");

    started[0]?.finish("page a");
    expect(await a).toBe("page a");
    expect(await again).toBe("page a");
    await settle();
    expect(started.map((s) => s.threadId)).toEqual(["a", "b"]);
    started[1]?.finish("page b");
    expect(await b).toBe("page b");
    // Served from memory at the same version.
    expect(await pages.page("a", "u")).toBe("page a");
    expect(started).toHaveLength(2);
  });

  it("builds again when the version moves or the build failed, and keeps at most cachedChars of pages (the newest always)", async () => {
    const { started, build } = manualBuilds();
    const versions: Record<string, string> = { a: "1", b: "1" };
    const pages = new PageBuilds(build, async (threadId) => versions[threadId] as string, { running: 1, waiting: 8, cachedChars: 10 });

    const failed = pages.page("a", "u");
    await settle();
    started[0]?.fail(new Error("no such thread"));
    await expect(failed).rejects.toThrow("no such thread");
    const a = pages.page("a", "u");
    await settle();
    started[1]?.finish("aaaaaa");
    expect(await a).toBe("aaaaaa");
    expect(await pages.page("a", "u")).toBe("aaaaaa");
    expect(started).toHaveLength(2);

    versions["a"] = "2";
    const moved = pages.page("a", "u");
    await settle();
    started[2]?.finish("AAAAAA");
    expect(await moved).toBe("AAAAAA");

    // 6 + 6 characters exceed 10: b's page evicts a's.
    const b = pages.page("b", "u");
    await settle();
    started[3]?.finish("bbbbbb");
    await b;
    expect(await pages.page("b", "u")).toBe("bbbbbb");
    expect(started).toHaveLength(4);
    const rebuilt = pages.page("a", "u");
    await settle();
    expect(started).toHaveLength(5);
    started[4]?.finish("AAAAAA");
    await rebuilt;
  });
});
