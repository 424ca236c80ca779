// The packages as a user gets them: `pnpm pack` every package (scripts/pack-all.mjs, what
// `pnpm pack:all` runs after its build), install the tarballs into scratch projects outside the
// workspace, and use them there.
//   npm: README.md's "Install" as written: its project block run with sh in a folder beside the
//        tarballs' `contextview/packs/` (npm, the registry for everything else), then its
//        createAgent quick start type-checked by a strict tsc WITHOUT skipLibCheck and run.
//   esm: "type": "module", TypeScript nodenext. First WITHOUT @contextview/sqlite: the install
//        must hold no better-sqlite3, and a graph with streaming metrics must run. Then with it.
//   cjs: CommonJS, TypeScript nodenext, everything installed.
// In each: tsc type-checks the README quick starts and every checked docs snippet (statements
// wrapped in an async function for CommonJS, where top-level await does not compile) and
// scripts/consumer/smoke.ts; then runs each README quick start as written (createAgent first,
// then StateGraph) and the smoke test. In esm, then the README's `npx contextview inspect`
// line on the quick start's thread, and scripts/consumer/newcomer.mjs: a new user's mistakes.
// Installs use pnpm with the machine's pnpm store, offline first, so a warm store needs no network.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packAll } from "./pack-all.mjs";
import { installedPackages, readmeInstallGaps, readSnippets, toMarkdownPlaces, writeSnippets } from "./snippets.mjs";

const root = new URL("..", import.meta.url).pathname;
const keep = process.argv.includes("--keep");
const started = performance.now();
const versionOf = (name) => JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")).version;

function run(cwd, command, args, { quiet = false, env = process.env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...env, FORCE_COLOR: "0", npm_config_yes: "true" } });
    let out = "";
    child.stdout.on("data", (data) => (out += data));
    child.stderr.on("data", (data) => (out += data));
    child.on("exit", (code) => {
      if (code === 0) {
        if (!quiet && out.trim()) console.log(out.trim().replace(/^/gm, `  [${cwd.split("/").pop()}] `));
        resolve(out);
      } else reject(Object.assign(new Error(`${command} ${args.join(" ")} failed in ${cwd} (exit ${code})\n${out}`), { out }));
    });
  });
}

const seconds = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
const work = mkdtempSync(join(tmpdir(), "contextview-consumer-"));
// The tarballs sit where README.md's install line looks for them: ../contextview/packs/ of a project beside the clone.
const tarballs = join(work, "contextview", "packs");

// 1. Pack, as `pnpm pack:all` does after its build (check:packages builds; this needs a build).
const packed = await packAll(tarballs);
const tarballOf = Object.fromEntries(packed.map(({ name, tarball }) => [name, `file:${tarball}`]));
console.log(`packed ${Object.keys(tarballOf).join(", ")} (${seconds()})`);

const common = {
  "@langchain/core": versionOf("@langchain/core"),
  "@langchain/langgraph": versionOf("@langchain/langgraph"),
  langchain: versionOf("langchain"),
  zod: versionOf("zod"),
  "prom-client": versionOf("prom-client"),
};
// Everything the docs' snippets import: both stores with their checkpointers, and js-tiktoken;
// and the rest of the README's install line (better-sqlite3, the inspector's CLI).
const withSqlite = {
  "@contextview/sqlite": tarballOf["@contextview/sqlite"],
  "@contextview/inspect": tarballOf["@contextview/inspect"],
  "better-sqlite3": versionOf("better-sqlite3"),
  "@langchain/langgraph-checkpoint-sqlite": versionOf("@langchain/langgraph-checkpoint-sqlite"),
  "@contextview/postgres": tarballOf["@contextview/postgres"],
  "@langchain/langgraph-checkpoint-postgres": versionOf("@langchain/langgraph-checkpoint-postgres"),
  "js-tiktoken": versionOf("js-tiktoken"),
};
const devDependencies = { typescript: versionOf("typescript"), "@types/node": versionOf("@types/node") };

function writeProject(dir, type, dependencies) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: `consumer-${type}`, private: true, type, dependencies, devDependencies }, null, 2),
  );
  // Our own packages come from the tarballs, wherever they are asked for; better-sqlite3 may build.
  writeFileSync(
    join(dir, "pnpm-workspace.yaml"),
    `overrides:\n${Object.entries(tarballOf).map(([name, spec]) => `  "${name}": "${spec}"`).join("\n")}\nallowBuilds:\n  better-sqlite3: true\n`,
  );
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { target: "ES2022", lib: ["ES2022", "DOM"], module: "nodenext", moduleResolution: "nodenext", strict: true, skipLibCheck: true, outDir: "out", types: ["node"] },
      include: ["*.ts"],
    }),
  );
}

const install = (dir) => run(dir, "pnpm", ["install", "--no-frozen-lockfile", "--prefer-offline", "--config.confirmModulesPurge=false", "--reporter=silent"], { quiet: true });

async function typecheckAndRun(dir, wrap) {
  const { written } = writeSnippets(dir, { wrap });
  cpSync(join(root, "scripts/consumer/smoke.ts"), join(dir, "smoke.ts"));
  try {
    await run(dir, "node", ["node_modules/typescript/bin/tsc", "-p", "."], { quiet: true });
  } catch (error) {
    throw new Error(toMarkdownPlaces(error.message, written, dir));
  }
  const quickStarts = written.filter((file) => file.file === "README.md");
  const name = dir.split("/").pop();
  console.log(`${name}: ${quickStarts.length} README quick starts and ${written.length - quickStarts.length} docs snippets type-check (${seconds()})`);
  // The first screen: createAgent first, then a StateGraph of your own.
  const kinds = quickStarts.map((file) => readFileSync(join(dir, file.name), "utf8")).map((code) => (/\bcreateAgent\(/.test(code) ? "createAgent" : /\bnew StateGraph\(/.test(code) ? "StateGraph" : "other"));
  if (kinds.join() !== "createAgent,StateGraph") throw new Error(`README.md's ts blocks are ${kinds.join(", ")}; expected the createAgent quick start, then the StateGraph one`);
  for (const [i, quickStart] of quickStarts.entries()) {
    // As written: the emitted JavaScript of the README block, run from the project directory.
    const output = await run(dir, "node", [join("out", quickStart.name.replace(/\.ts$/, ".js"))], { quiet: true });
    if (!output.includes("You spent 120 on groceries.")) throw new Error(`README ${kinds[i]} quick start printed ${JSON.stringify(output)}`);
    if (kinds[i] === "createAgent" && !/^view: \d+ of \d+ tokens$/m.test(output)) throw new Error(`README createAgent quick start's onReport printed nothing: ${JSON.stringify(output)}`);
    console.log(`${name}: README ${kinds[i]} quick start ran: ${output.trim().replace(/\n/g, " | ")}`);
  }
  if (!existsSync(join(dir, "data/checkpoints.sqlite")) || !existsSync(join(dir, "data/checkpoints.contextview.sqlite"))) throw new Error("README quick starts left no data/ files");
  await run(dir, "node", ["out/smoke.js"]);
}

async function esmProject() {
  const dir = join(work, "esm");
  writeProject(dir, "module", { "@contextview/core": tarballOf["@contextview/core"], "@contextview/langgraph": tarballOf["@contextview/langgraph"], ...common });
  await install(dir);
  const pulled = readdirSync(join(dir, "node_modules/.pnpm")).filter((name) => /^better-sqlite3@|^@contextview\+sqlite@/.test(name));
  if (pulled.length > 0) throw new Error(`@contextview/langgraph without @contextview/sqlite still installed ${pulled.join(", ")}`);
  console.log(`esm: @contextview/langgraph installed without @contextview/sqlite or better-sqlite3 (${seconds()})`);
  // The smoke test needs no SQLite: run it before adding it (transpiled only; tsc checks it below).
  const transpile = `const ts = require("typescript"); const fs = require("fs");
fs.writeFileSync("smoke.mjs", ts.transpileModule(fs.readFileSync(${JSON.stringify(join(root, "scripts/consumer/smoke.ts"))}, "utf8"), { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText);`;
  await run(dir, "node", ["-e", transpile], { quiet: true });
  await run(dir, "node", ["smoke.mjs"]);
  rmSync(join(dir, "smoke.mjs"));
  const dependencies = { "@contextview/core": tarballOf["@contextview/core"], "@contextview/langgraph": tarballOf["@contextview/langgraph"], ...common, ...withSqlite };
  // Installed as the README says: every package of its install line.
  const notInstalled = installedPackages(readmeInstallGaps().line ?? "").filter((name) => !(name in dependencies));
  if (notInstalled.length > 0) throw new Error(`the esm project does not install ${notInstalled.join(", ")} of README.md's install line`);
  writeProject(dir, "module", dependencies);
  await install(dir);
  await typecheckAndRun(dir, false);
  await newcomer(dir);
}

/** The README's inspector line as written, then a new user's first-hour mistakes (scripts/consumer/newcomer.mjs). */
async function newcomer(dir) {
  const from = performance.now();
  const inspect = /`(npx contextview inspect [^`]+)`/.exec(readFileSync(join(root, "README.md"), "utf8"))?.[1];
  if (!inspect) throw new Error("README.md has no `npx contextview inspect …` line");
  const [npx, ...args] = inspect.split(/\s+/);
  const shown = await run(dir, npx, args, { quiet: true });
  if (!/\d+ model calls of thread \S+: (\d+) verified, 0 mismatch/.test(shown) || /: 0 verified/.test(shown)) throw new Error(`${inspect} printed ${JSON.stringify(shown)}`);
  const took = () => `${((performance.now() - from) / 1000).toFixed(1)} s`;
  console.log(`esm: ${inspect}: ${shown.split("\n").find((line) => line.includes("model calls of thread"))} (${took()})`);
  cpSync(join(root, "scripts/consumer/newcomer.mjs"), join(dir, "newcomer.mjs"));
  const output = await run(dir, "node", ["newcomer.mjs"], { quiet: true });
  console.log(`esm: ${output.split("\n").find((line) => line.startsWith("newcomer:"))} (inspector and newcomer ${took()})`);
}

async function cjsProject() {
  const dir = join(work, "cjs");
  writeProject(dir, "commonjs", { "@contextview/core": tarballOf["@contextview/core"], "@contextview/langgraph": tarballOf["@contextview/langgraph"], ...common, ...withSqlite });
  await install(dir);
  console.log(`cjs: installed (${seconds()})`);
  await typecheckAndRun(dir, true);
}

/** README.md's "Install" as a user follows it: the pack command, then the project block with npm. */
async function npmProject() {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
  // The pack command: the script it names builds, then runs the packer used above.
  const packLine = blocks.flatMap((block) => block.split("\n")).find((line) => /\bpack:all\b/.test(line) && !line.trimStart().startsWith("#"));
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const pnpmVersion = manifest.packageManager.replace(/^pnpm@/, "");
  if (packLine?.trim() !== `npx -y pnpm@${pnpmVersion} pack:all`) {
    throw new Error(`README.md's pack command is ${JSON.stringify(packLine)}; expected \`npx -y pnpm@${pnpmVersion} pack:all\``);
  }
  const packScript = manifest.scripts["pack:all"];
  if (packScript !== "pnpm build && node scripts/pack-all.mjs") throw new Error(`package.json's pack:all is ${JSON.stringify(packScript)}`);
  const install = blocks.find((block) => /^npm install /m.test(block));
  if (!install) throw new Error("README.md has no sh block with `npm install …`");
  const dir = join(work, "my-agent");
  mkdirSync(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "my-agent", private: true, type: "module" }, null, 2));
  // A user's shell: none of the npm_* variables pnpm sets for this script.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  Object.assign(env, { npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" });
  await run(dir, "sh", ["-e", "-c", install], { quiet: true, env });
  const lock = JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8"));
  const ours = Object.entries(lock.packages).filter(([path]) => path.startsWith("node_modules/@contextview/"));
  const fromRegistry = ours.filter(([, entry]) => !String(entry.resolved ?? "").startsWith("file:"));
  const names = ours.map(([path, entry]) => `${path.slice("node_modules/".length)} from ${entry.resolved}`).join(", ");
  if (ours.length === 0 || fromRegistry.length > 0) throw new Error(`npm installed ${names}`);
  console.log(`npm: README's install block as written: ${names} (${seconds()})`);
  // The user's own TypeScript, strict and without skipLibCheck: every .d.ts read must resolve.
  await run(dir, "npm", ["install", "-D", `typescript@${versionOf("typescript")}`, `@types/node@${versionOf("@types/node")}`], { quiet: true, env });
  const quickStart = readSnippets().find((snippet) => snippet.file === "README.md" && /\bcreateAgent\(/.test(snippet.code));
  writeFileSync(join(dir, "quick-start.ts"), `${quickStart.code}\n`);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { target: "ES2022", module: "nodenext", moduleResolution: "nodenext", strict: true, skipLibCheck: false, types: ["node"] },
      include: ["*.ts"],
    }),
  );
  await run(dir, "node", ["node_modules/typescript/bin/tsc", "-p", "."], { quiet: true, env });
  const output = await run(dir, "node", ["quick-start.js"], { quiet: true, env });
  if (!output.includes("You spent 120 on groceries.")) throw new Error(`the README createAgent quick start printed ${JSON.stringify(output)} with npm`);
  const printed = output.trim().replace(/\n/g, " | ");
  console.log(`npm: strict tsc (skipLibCheck off) passes on the README createAgent quick start, which ran: ${printed} (${seconds()})`);
}

try {
  await Promise.all([esmProject(), cjsProject(), npmProject()]);
  console.log(`Consumer test: packed packages work in an ESM and a CommonJS project, and installed with npm as README.md says (${seconds()})`);
} catch (error) {
  console.error(error.message ?? error);
  process.exitCode = 1;
} finally {
  if (keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
