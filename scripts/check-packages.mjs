// Checks every packages/* as it would be published: publint (package.json against the files)
// and @arethetypeswrong/cli (types and code agree for require, import and bundlers). Run after
// `pnpm build`; two packages at a time.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const packages = readdirSync(join(root, "packages"))
  .map((name) => join(root, "packages", name))
  .filter((dir) => existsSync(join(dir, "package.json")));

function run(cwd, args) {
  return new Promise((resolve) => {
    const child = spawn("pnpm", ["exec", ...args], { cwd, env: { ...process.env, FORCE_COLOR: "0" } });
    let out = "";
    child.stdout.on("data", (data) => (out += data));
    child.stderr.on("data", (data) => (out += data));
    child.on("exit", (code) => resolve({ ok: code === 0, out }));
  });
}

/** Every package is built by the shared dual build, and its exports point at both halves. */
function layoutProblems(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const problems = [];
  if (manifest.scripts?.build !== "node ../../scripts/build-package.mjs") problems.push('its "build" script must be "node ../../scripts/build-package.mjs"');
  for (const [key, target] of Object.entries(manifest.exports ?? {})) {
    if (key === "./package.json") continue;
    // "." is index; a subpath names its file, the same in both builds, types first.
    const file = key === "." ? "index" : /^\.\/dist\/cjs\/(.+)\.js$/.exec(target?.require?.default ?? "")?.[1];
    for (const [condition, folder] of [["import", "esm"], ["require", "cjs"]]) {
      const pair = target?.[condition];
      if (file === undefined || pair?.types !== `./dist/${folder}/${file}.d.ts` || pair?.default !== `./dist/${folder}/${file}.js` || Object.keys(pair)[0] !== "types") {
        problems.push(`exports["${key}"].${condition} must be { types: "./dist/${folder}/${file ?? "<file>"}.d.ts", default: "./dist/${folder}/${file ?? "<file>"}.js" }`);
      }
    }
  }
  return problems;
}

async function check(dir) {
  const name = dir.slice(root.length);
  const layout = layoutProblems(dir);
  if (layout.length > 0) {
    console.log(`FAIL ${name}: ${layout.join("; ")} (run pnpm build outside CI to rewrite exports)`);
    return false;
  }
  const [lint, types] = [await run(dir, ["publint", "--strict"]), await run(dir, ["attw", "--pack", ".", "--format", "table-flipped"])];
  const ok = lint.ok && types.ok;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}: publint ${lint.ok ? "ok" : "failed"}, attw ${types.ok ? "ok" : "failed"}`);
  if (!ok) console.log([lint.ok ? "" : lint.out, types.ok ? "" : types.out].join("\n"));
  return ok;
}

const queue = [...packages];
const results = [];
await Promise.all(
  [0, 1].map(async () => {
    for (let dir = queue.shift(); dir !== undefined; dir = queue.shift()) results.push(await check(dir));
  }),
);
if (results.includes(false)) process.exit(1);
console.log(`Packages: ${results.length} checked by publint and attw`);
