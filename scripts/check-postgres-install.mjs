// A PostgreSQL user installs neither @contextview/sqlite nor better-sqlite3: packs core,
// postgres and langgraph, installs the tarballs into a scratch project without the SQLite
// packages, checks they are absent, then runs a graph with PostgresSaver and
// PostgresContextStore against POSTGRES_URL. Run after `pnpm build`:
//   node scripts/check-postgres-install.mjs
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const url = process.env.POSTGRES_URL || "postgresql://postgres@127.0.0.1:5432/test";
const scratch = mkdtempSync(join(tmpdir(), "contextview-postgres-install-"));
const run = (command, args, cwd) => execFileSync(command, args, { cwd, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });

try {
  const tarballs = {};
  for (const name of ["core", "postgres", "langgraph"]) {
    run("pnpm", ["pack", "--pack-destination", scratch], join(root, "packages", name));
    const file = readdirSync(scratch).find((f) => f.startsWith(`contextview-${name}-`) && f.endsWith(".tgz"));
    tarballs[`@contextview/${name}`] = `file:./${file}`;
  }
  const version = (dep) => JSON.parse(run("node", ["-p", `JSON.stringify(require("${dep}/package.json").version)`], join(root, "packages", "postgres")));
  writeFileSync(
    join(scratch, "package.json"),
    JSON.stringify({
      name: "scratch",
      private: true,
      dependencies: {
        ...tarballs,
        "@langchain/core": version("@langchain/core"),
        "@langchain/langgraph": "1.7.3",
        "@langchain/langgraph-checkpoint-postgres": version("@langchain/langgraph-checkpoint-postgres"),
        pg: "^8.12.0",
      },
      // npm resolves a tarball's `workspace:^` peers only once published; point them at the local tarballs.
      overrides: { "@contextview/core": tarballs["@contextview/core"] },
    }),
  );
  run("npm", ["install", "--no-audit", "--no-fund", "--omit=optional", "--loglevel=error"], scratch);
  for (const absent of ["better-sqlite3", "@contextview/sqlite"]) {
    if (existsSync(join(scratch, "node_modules", absent))) throw new Error(`${absent} was installed, but a PostgreSQL user must not need it`);
  }
  const schema = `cv_install_${process.pid}`;
  writeFileSync(
    join(scratch, "main.cjs"),
    `const { HumanMessage, AIMessage } = require("@langchain/core/messages");
const { Annotation, StateGraph, MessagesAnnotation, START, END } = require("@langchain/langgraph");
const { PostgresSaver } = require("@langchain/langgraph-checkpoint-postgres");
const { PostgresContextStore } = require("@contextview/postgres");
const { ContextViewAnnotation, createContextNode } = require("@contextview/langgraph");
(async () => {
  const saver = PostgresSaver.fromConnString(${JSON.stringify(url)}, { schema: ${JSON.stringify(schema)} });
  try {
    await saver.setup();
    const store = PostgresContextStore.nextTo(saver);
    const graph = new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }))
      .addNode("context", createContextNode({ store }))
      .addNode("model", async (state) => ({ messages: [new AIMessage("ok " + state.messages.length)] }))
      .addEdge(START, "context").addEdge("context", "model").addEdge("model", END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "t", user_id: "u" } };
    for (const text of ["We chose Postgres.", "What did we choose?"]) await graph.invoke({ messages: [new HumanMessage(text)] }, config);
    const state = await store.load("u", "t");
    if (state.cursor !== 2) throw new Error("evidence cursor " + state.cursor + ", expected 2");
    console.log("installed without @contextview/sqlite and better-sqlite3; evidence cursor " + state.cursor);
  } finally {
    await saver.pool.query('DROP SCHEMA IF EXISTS "${schema}" CASCADE');
    await saver.end();
  }
})().catch((error) => { console.error(error); process.exit(1); });
`,
  );
  process.stdout.write(run("node", ["main.cjs"], scratch));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
