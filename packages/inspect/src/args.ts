import { InspectError } from "./errors.js";

/** The parsed arguments of `contextview inspect`. */
export interface InspectArguments {
  checkpoints?: string;
  store?: string;
  postgres?: string;
  thread?: string;
  user?: string;
  out?: string;
  serve: boolean;
  port: number;
  limit?: number;
  help: boolean;
}

/**
 * Port `--serve` listens on, on 127.0.0.1 only.
 *
 * @example
 * ```ts
 * await serveInspector(sources, { port: DEFAULT_PORT }); // http://127.0.0.1:4319/
 * ```
 */
export const DEFAULT_PORT = 4319;

export const USAGE = `Usage:
  contextview inspect --checkpoints FILE --thread ID [--user ID] [--out report.html]
  contextview inspect --checkpoints FILE --serve [--port ${DEFAULT_PORT}]
  contextview inspect --postgres URL --thread ID --user ID [--out report.html] | --serve

Options:
  --checkpoints FILE  a SqliteSaver checkpoint file; the context store is the sidecar beside it
  --store FILE        the SQLite context store, when it is not beside the checkpoints
  --postgres URL      PostgresSaver checkpoints and the PostgreSQL context store
                      (needs @contextview/postgres and @langchain/langgraph-checkpoint-postgres)
  --thread ID         the LangGraph thread_id to inspect
  --user ID           whose conversation (default: the only user with view records in the thread)
  --out FILE          where to write the page (default: contextview-<thread>.html)
  --serve             serve a thread list and thread pages on http://127.0.0.1:PORT
  --port N            the port of --serve (default ${DEFAULT_PORT}; 0 picks a free one)
  --limit N           only the newest N calls
`;

const VALUED = new Set(["checkpoints", "store", "postgres", "thread", "user", "out", "port", "limit"]);

function integer(field: string, value: string, min: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min) throw new InspectError("INVALID_ARGUMENT", `Expected \`--${field}\` to be an integer of at least ${min}, got ${JSON.stringify(value)}`, { field });
  return n;
}

/**
 * Parses the arguments after `contextview`. Throws `INVALID_ARGUMENT` naming the
 * argument for an unknown command or option, a missing value, or a bad number.
 *
 * @example
 * ```ts
 * parseInspectArguments(["inspect", "--checkpoints", "data/checkpoints.sqlite", "--thread", "t-1"]);
 * ```
 */
export function parseInspectArguments(argv: readonly string[]): InspectArguments {
  const out: InspectArguments = { serve: false, port: DEFAULT_PORT, help: false };
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") return { ...out, help: true };
  if (command !== "inspect") throw new InspectError("INVALID_ARGUMENT", `Unknown command ${JSON.stringify(command)}; expected \`inspect\``, { field: "command" });
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    if (arg === "--help" || arg === "-h") out.help = true;
    else if (arg === "--serve") out.serve = true;
    else if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = arg.slice(2, eq < 0 ? undefined : eq);
      if (!VALUED.has(name)) throw new InspectError("INVALID_ARGUMENT", `Unknown option \`--${name}\`\n\n${USAGE}`, { field: name });
      const value = eq < 0 ? rest[++i] : arg.slice(eq + 1);
      if (value === undefined || value === "" || (eq < 0 && value.startsWith("--"))) throw new InspectError("INVALID_ARGUMENT", `Expected a value after \`--${name}\``, { field: name });
      if (name === "port") out.port = integer("port", value, 0);
      else if (name === "limit") out.limit = integer("limit", value, 1);
      else out[name as "checkpoints" | "store" | "postgres" | "thread" | "user" | "out"] = value;
    } else throw new InspectError("INVALID_ARGUMENT", `Unexpected argument ${JSON.stringify(arg)}\n\n${USAGE}`, { field: "arguments" });
  }
  if (out.help) return out;
  if ((out.checkpoints === undefined) === (out.postgres === undefined)) {
    throw new InspectError("INVALID_ARGUMENT", "Expected exactly one of `--checkpoints FILE` or `--postgres URL`", { field: out.checkpoints === undefined ? "checkpoints" : "postgres" });
  }
  if (!out.serve && out.thread === undefined) throw new InspectError("INVALID_ARGUMENT", "Expected `--thread ID` (or `--serve` for a thread list)", { field: "thread" });
  return out;
}
