import { InspectError } from "@contextview/inspect";
import { escapeHtml } from "../src/page/html.js";
import { parseInspectArguments } from "../src/args.js";
import { runInspectCli } from "../src/run-cli.js";

const capture = () => {
  const lines: string[] = [];
  return { lines, output: { out: (l: string) => void lines.push(l), err: (l: string) => void lines.push(l) } };
};

describe("contextview inspect arguments", () => {
  it("parses the documented forms", () => {
    expect(parseInspectArguments(["inspect", "--checkpoints", "data/checkpoints.sqlite", "--thread", "t-1", "--out", "report.html"])).toEqual({
      checkpoints: "data/checkpoints.sqlite",
      thread: "t-1",
      out: "report.html",
      serve: false,
      port: 4319,
      help: false,
    });
    expect(parseInspectArguments(["inspect", "--postgres=postgresql://x/db", "--serve", "--port", "0"])).toMatchObject({ postgres: "postgresql://x/db", serve: true, port: 0 });
    expect(parseInspectArguments([]).help).toBe(true);
  });

  it.each([
    [["look"], "command", "Unknown command \"look\"; expected `inspect`"],
    [["inspect", "--thread", "t"], "checkpoints", "Expected exactly one of `--checkpoints FILE` or `--postgres URL`"],
    [["inspect", "--checkpoints", "a", "--postgres", "b", "--thread", "t"], "postgres", "Expected exactly one of `--checkpoints FILE` or `--postgres URL`"],
    [["inspect", "--checkpoints", "a"], "thread", "Expected `--thread ID` (or `--serve` for a thread list)"],
    [["inspect", "--checkpoints", "--thread", "t"], "checkpoints", "Expected a value after `--checkpoints`"],
    [["inspect", "--checkpoints", "a", "--serve", "--port", "-1"], "port", "Expected `--port` to be an integer of at least 0, got \"-1\""],
    [["inspect", "--checkpoints", "a", "--thread", "t", "--limit", "0"], "limit", "Expected `--limit` to be an integer of at least 1, got \"0\""],
  ])("rejects %j naming `%s`", (argv, field, message) => {
    let error: unknown;
    try {
      parseInspectArguments(argv);
    } catch (caught) {
      error = caught;
    }
    expect(InspectError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "INVALID_ARGUMENT", field });
    expect((error as Error).message.startsWith(message)).toBe(true);
  });

  it("exits 2 on bad arguments and 1 on a missing file, saying why on one line", async () => {
    const bad = capture();
    expect(await runInspectCli(["inspect", "--nope"], bad.output)).toBe(2);
    expect(bad.lines[0]).toMatch(/^contextview: Unknown option `--nope`/);
    const missing = capture();
    expect(await runInspectCli(["inspect", "--checkpoints", "/no/such/checkpoints.sqlite", "--thread", "t"], missing.output)).toBe(1);
    expect(missing.lines).toEqual(["contextview: No checkpoint file at /no/such/checkpoints.sqlite (`--checkpoints`)"]);
  });

  it("says clearly when --postgres is asked for without the PostgreSQL package", async () => {
    // The workspace has @contextview/postgres: make it missing, as for a user who did not install it.
    jest.doMock(
      "@contextview/postgres",
      () => {
        throw Object.assign(new Error("Cannot find module '@contextview/postgres'"), { code: "MODULE_NOT_FOUND" });
      },
      { virtual: true },
    );
    const { lines, output } = capture();
    expect(await runInspectCli(["inspect", "--postgres", "postgresql://postgres@127.0.0.1:5432/test", "--thread", "t"], output)).toBe(1);
    expect(lines).toEqual(["contextview: `--postgres` needs the package @contextview/postgres, which is not installed; install it next to @contextview/inspect"]);
  });

  it("escapes every character that could open markup", () => {
    expect(escapeHtml(`<script>alert("x") & 'y'</script>`)).toBe("&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;");
  });
});
