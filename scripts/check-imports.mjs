// The arrows between our packages point one way: sqlite -> core, postgres -> core, langgraph -> core,
// inspect -> core/sqlite/langgraph (and postgres, loaded only when installed).
// core imports nothing of ours. A package reaches another only by its name or a subpath its
// package.json "exports" declares (`@contextview/core/store`), never by a path into it.
// core imports no Node built-in either (`node:crypto`, `fs`, …): it runs in browsers and edge runtimes.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";

/** Packages that must run outside Node. */
const portable = new Set(["core"]);
const builtins = new Set(builtinModules);

const allowed = {
  core: [],
  sqlite: ["core"],
  postgres: ["core"],
  // The user picks a store package (optional peers): langgraph runs without either.
  langgraph: ["core"],
  // The inspector reads a store (sqlite; postgres is resolved at run time when installed) and rebuilds views with core.
  inspect: ["core", "sqlite", "langgraph", "postgres"],
};

const root = new URL("..", import.meta.url).pathname;
const specifier = /(?:import|export)[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|require\(\s*["']([^"']+)["']\s*\)/g;
const problems = [];

/** Every specifier a package publishes: its name and its declared subpaths. */
const published = new Set(
  Object.keys(allowed).flatMap((pkg) => {
    const manifest = JSON.parse(readFileSync(join(root, "packages", pkg, "package.json"), "utf8"));
    return Object.keys(manifest.exports ?? { ".": "" })
      .filter((key) => key !== "./package.json")
      .map((key) => (key === "." ? manifest.name : `${manifest.name}/${key.slice(2)}`));
  }),
);

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (name.endsWith(".ts")) yield path;
  }
}

for (const [pkg, deps] of Object.entries(allowed)) {
  const src = join(root, "packages", pkg, "src");
  let list;
  try {
    list = [...files(src)];
  } catch {
    continue;
  }
  for (const file of list) {
    // Examples in doc comments are not imports.
    const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    for (const match of text.matchAll(specifier)) {
      const spec = match[1] ?? match[2] ?? match[3];
      const where = relative(root, file);
      const ours = /^@contextview\/([^/]+)/.exec(spec);
      if (portable.has(pkg) && (spec.startsWith("node:") || builtins.has(spec.split("/")[0]))) problems.push(`${where}: ${pkg} must not import the Node built-in ${spec}; it runs in browsers too`);
      if (ours && !deps.includes(ours[1])) problems.push(`${where}: ${pkg} must not import ${spec}`);
      if (ours && !published.has(spec)) problems.push(`${where}: import ${spec} reaches inside a package; import @contextview/${ours[1]} or a subpath its package.json exports`);
      if (spec.startsWith(".") && relative(src, join(file, "..", spec)).startsWith("..")) problems.push(`${where}: ${spec} leaves the package's src`);
      if (/^export \* from ["']@contextview/m.test(text)) problems.push(`${where}: name re-exports explicitly, no export * across packages`);
    }
  }
}

if (problems.length > 0) {
  console.error(`Import rules broken:\n${[...new Set(problems)].join("\n")}`);
  process.exit(1);
}
console.log("Import arrows: ok (sqlite -> core, postgres -> core, langgraph -> core, inspect -> core/sqlite/langgraph/postgres; core imports no Node built-in)");
