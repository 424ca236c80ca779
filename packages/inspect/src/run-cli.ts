import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseInspectArguments, USAGE } from "./args.js";
import { InspectError } from "./errors.js";
import { inspectThread } from "./inspect-thread.js";
import { renderThreadPage } from "./page/render-thread.js";
import { serveInspector, type InspectorServer } from "./serve.js";
import { openPostgresSources, openSqliteSources, type InspectSources } from "./sources.js";

/** Where the command writes. */
export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

async function userOf(sources: InspectSources, threadId: string, given: string | undefined): Promise<string> {
  if (given !== undefined) return given;
  const users = await sources.usersOf(threadId);
  if (users.length === 1) return users[0] as string;
  if (users.length === 0) {
    const known = (await sources.listThreads()).map((t) => t.threadId);
    const listed = known.length === 0 ? "the checkpoints hold no thread" : `threads in the checkpoints: ${known.slice(0, 20).map((t) => JSON.stringify(t)).join(", ")}${known.length > 20 ? `, and ${known.length - 20} more` : ""}`;
    throw new InspectError(
      "NOT_FOUND",
      `No view records for thread ${JSON.stringify(threadId)} (${listed}); pass \`--user\` if they are kept under another store, or check that the thread ran with recordViews on`,
      { field: "thread" },
    );
  }
  throw new InspectError("INVALID_ARGUMENT", `Thread ${JSON.stringify(threadId)} has view records of several users (${users.join(", ")}); pass \`--user\``, { field: "user" });
}

/**
 * `contextview inspect …`: writes a thread's page, or serves the thread list.
 * Resolves to the exit code (0 ok, 1 failed, 2 bad arguments); with `--serve`,
 * resolves once the server is listening and hands it to `onServe`.
 *
 * @example
 * ```ts
 * process.exitCode = await runInspectCli(process.argv.slice(2));
 * ```
 */
export async function runInspectCli(
  argv: readonly string[],
  output: CliOutput = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) },
  onServe?: (server: InspectorServer, sources: InspectSources) => void,
): Promise<number> {
  let sources: InspectSources | undefined;
  try {
    const args = parseInspectArguments(argv);
    if (args.help) {
      output.out(USAGE);
      return 0;
    }
    sources = args.postgres !== undefined ? await openPostgresSources({ url: args.postgres }) : openSqliteSources({ checkpoints: args.checkpoints as string, ...(args.store ? { store: args.store } : {}) });
    if (args.serve) {
      const server = await serveInspector(sources, { port: args.port, ...(args.user ? { defaultUser: args.user } : {}) });
      output.out(`contextview inspector on ${server.url} (127.0.0.1 only; Ctrl+C stops it)`);
      if (args.thread !== undefined) output.out(`thread: ${server.pageUrl(args.thread, await userOf(sources, args.thread, args.user))}`);
      onServe?.(server, sources);
      sources = undefined;
      return 0;
    }
    const threadId = args.thread as string;
    const thread = await inspectThread({ checkpointer: sources.checkpointer, store: sources.store, threadId, userId: await userOf(sources, threadId, args.user), ...(args.limit ? { limit: args.limit } : {}) });
    const file = resolve(args.out ?? `contextview-${threadId.replace(/[^\w.-]+/g, "_")}.html`);
    writeFileSync(file, renderThreadPage(thread));
    const statuses = { match: 0, mismatch: 0, unverifiable: 0 };
    for (const call of thread.calls) statuses[call.rebuilt.status]++;
    const missing = thread.missing.length > 0 ? `, ${thread.missing.length} ${thread.missing.length === 1 ? "record" : "records"} missing` : "";
    const verified = `${statuses.match} verified, ${statuses.mismatch} mismatch, ${statuses.unverifiable} unverifiable`;
    output.out(`${thread.calls.length} model calls of thread ${threadId}: ${verified}${missing}`);
    output.out(`wrote ${file}`);
    return 0;
  } catch (error) {
    output.err(`contextview: ${(error as Error).message}`);
    return InspectError.isInstance(error) && error.code === "INVALID_ARGUMENT" ? 2 : 1;
  } finally {
    await sources?.close();
  }
}
