// Builds the package in the current directory twice, from one tsconfig.build.json:
//   dist/cjs  CommonJS + .d.ts   (dist/cjs/package.json says "type": "commonjs"): tsc, which
//             also type-checks
//   dist/esm  ES modules + .d.ts (dist/esm/package.json says "type": "module"): each source
//             transpiled alone (the sources are isolatedModules), the .d.ts copied from
//             dist/cjs (tsc emits the same declarations for both: checked by attw)
// and checks that package.json points each `exports` condition (of "." and of every subpath,
// e.g. "./store" -> dist/<format>/store-contract.js) at its own build and types.
// Every package's `build` script is `node ../../scripts/build-package.mjs`; a new package
// gets the same dual build by using it. Locally a package.json whose entry points differ is
// rewritten (the change shows in git); in CI (CI=true) it fails instead.
//
// Why two builds: an ES-module project loads @langchain/core's ESM build. A CommonJS-only
// contextview would load the CommonJS build beside it: two copies of every LangChain class,
// so types disagree ("lc_runnable is protected") and so does `instanceof`.
//
// `require()` of an optional peer (loaded only when a feature needs it) stays in the source;
// an ESM file that calls `require(` or `require.resolve(` gets `const require = createRequire(import.meta.url)`.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";

const cwd = process.cwd();
const manifestPath = join(cwd, "package.json");
const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
const require = createRequire(import.meta.url);
const tsc = require.resolve("typescript/bin/tsc");
const ts = require("typescript");

/** An entry point's two builds: "." is index; a subpath names its own file (a key of `exports`). */
const dual = (file) => ({
  import: { types: `./dist/esm/${file}.d.ts`, default: `./dist/esm/${file}.js` },
  require: { types: `./dist/cjs/${file}.d.ts`, default: `./dist/cjs/${file}.js` },
});
/** The file a subpath is built from, read from its current `require` target (src/<file>.ts). */
function subpathFile(key) {
  const file = /^\.\/dist\/(?:cjs|esm)\/(.+)\.js$/.exec(manifest.exports?.[key]?.require?.default ?? manifest.exports?.[key]?.import?.default ?? "")?.[1];
  if (file === undefined || !existsSync(join(cwd, "src", `${file}.ts`))) throw new Error(`${manifest.name}: exports["${key}"] must point at ./dist/cjs/<file>.js for a src/<file>.ts`);
  return file;
}
const subpaths = Object.keys(manifest.exports ?? {}).filter((key) => key !== "." && key !== "./package.json");
const expected = {
  main: "./dist/cjs/index.js",
  types: "./dist/cjs/index.d.ts",
  exports: {
    ".": dual("index"),
    ...Object.fromEntries(subpaths.map((key) => [key, dual(subpathFile(key))])),
    "./package.json": "./package.json",
  },
};
// TypeScript's legacy `moduleResolution: "node"` (node10) ignores `exports`: it finds a
// subpath's types only through `typesVersions` (Node itself has read `exports` since 12).
if (subpaths.length > 0) {
  expected.typesVersions = { "*": Object.fromEntries(subpaths.map((key) => [key.slice(2), [`./dist/cjs/${subpathFile(key)}.d.ts`]])) };
}

function run(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, ...args], { cwd, stdio: "inherit" });
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`tsc ${args.join(" ")} exited with ${code}`))));
  });
}

function* filesEnding(dir, suffix) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* filesEnding(path, suffix);
    else if (name.endsWith(suffix)) yield path;
  }
}

/** dist/esm: every source transpiled as an ES module, with a source map; declarations copied. */
function buildEsm(srcDir, cjsDir, esmDir) {
  const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(join(cwd, "tsconfig.build.json"), ts.sys.readFile).config, ts.sys, cwd);
  const compilerOptions = { ...parsed.options, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, sourceMap: true, declaration: false };
  for (const file of filesEnding(srcDir, ".ts")) {
    if (file.endsWith(".d.ts")) continue;
    const out = join(esmDir, relative(srcDir, file)).replace(/\.ts$/, ".js");
    const { outputText, sourceMapText, diagnostics } = ts.transpileModule(readFileSync(file, "utf8"), { compilerOptions, fileName: file, reportDiagnostics: true });
    if (diagnostics?.length) throw new Error(ts.formatDiagnostics(diagnostics, ts.createCompilerHost(compilerOptions)));
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
    const map = JSON.parse(sourceMapText);
    map.file = out.split("/").pop();
    map.sources = [relative(dirname(out), file)];
    writeFileSync(`${out}.map`, JSON.stringify(map));
  }
  for (const file of filesEnding(cjsDir, ".d.ts")) {
    const out = join(esmDir, relative(cjsDir, file));
    mkdirSync(dirname(out), { recursive: true });
    copyFileSync(file, out);
  }
}

const REQUIRE_CALL = /(^|[^.\w$])require(\.resolve)?\(/m;
const SHIM = 'import { createRequire as __cvCreateRequire } from "node:module";\nconst require = __cvCreateRequire(import.meta.url);\n';

function shimRequire(dir) {
  for (const file of filesEnding(dir, ".js")) {
    const text = readFileSync(file, "utf8");
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    if (REQUIRE_CALL.test(code)) writeFileSync(file, SHIM + text);
  }
}

function checkManifest() {
  const differs = Object.entries(expected).filter(([key, value]) => JSON.stringify(manifest[key]) !== JSON.stringify(value));
  if (differs.length === 0) return;
  const keys = differs.map(([key]) => key).join(", ");
  if (process.env.CI === "true") {
    console.error(`${manifest.name}: package.json ${keys} must point at the dual build:\n${JSON.stringify(expected, null, 2)}`);
    process.exit(1);
  }
  // Keep key order: replace in place, append what is missing.
  const next = {};
  for (const [key, value] of Object.entries(manifest)) next[key] = key in expected ? expected[key] : value;
  for (const [key, value] of Object.entries(expected)) if (!(key in next)) next[key] = value;
  writeFileSync(manifestPath, `${JSON.stringify(next, null, 2)}\n`);
  console.log(`${manifest.name}: rewrote package.json ${keys} for the dual build`);
}

// Run in a package's directory (its `build` script), never elsewhere: nothing is touched before this.
if (!existsSync(join(cwd, "tsconfig.build.json"))) throw new Error(`${cwd} has no tsconfig.build.json: run this as a package's build script`);
// tsc (module nodenext) emits the format of the package's "type": it must give CommonJS here.
if (manifest.type === "module") throw new Error(`${manifest.name}: keep "type": "commonjs" in package.json; dist/esm/package.json marks the ES-module half`);
checkManifest();
rmSync(join(cwd, "dist"), { recursive: true, force: true });
await run(["-p", "tsconfig.build.json", "--outDir", "dist/cjs"]);
buildEsm(join(cwd, "src"), join(cwd, "dist/cjs"), join(cwd, "dist/esm"));
writeFileSync(join(cwd, "dist/cjs/package.json"), '{ "type": "commonjs" }\n');
writeFileSync(join(cwd, "dist/esm/package.json"), '{ "type": "module" }\n');
shimRequire(join(cwd, "dist/esm"));
console.log(`${manifest.name}: built dist/cjs and dist/esm`);
