// Lists every public entry point of every packages/* (the keys of package.json "exports"), the
// names each exports, and where each name is imported outside its own package's src: other
// packages' src, their tests, this package's tests, test/, examples/, eval/, bench/, scripts/,
// and the ```ts blocks of README.md, docs/*.md and packages/*/README.md.
//
//   node scripts/export-usage.mjs            counts per entry point
//   node scripts/export-usage.mjs --list     also every name and where it is used
//   node scripts/export-usage.mjs --unused   also the names used nowhere outside their src
//
// Why: a root export is a promise to users. A name only the package itself uses is not one,
// and a name only sibling packages use belongs in a subpath (see each package's README).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { createRequire } from "node:module";

const ts = createRequire(import.meta.url)("typescript");
const root = new URL("..", import.meta.url).pathname;
const list = process.argv.includes("--list");
const unusedOnly = process.argv.includes("--unused");

/** Entry points of a package: "." and each subpath, with the source file each is built from. */
function entriesOf(pkgDir) {
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const entries = [];
  for (const [key, value] of Object.entries(manifest.exports ?? {})) {
    const built = value?.require?.default;
    if (typeof built !== "string") continue;
    const source = join(pkgDir, built.replace(/^\.\/dist\/cjs\//, "src/").replace(/\.js$/, ".ts"));
    entries.push({ specifier: key === "." ? manifest.name : `${manifest.name}/${key.slice(2)}`, source });
  }
  return { name: manifest.name, entries };
}

/** Names exported as types only (`export type`, interfaces), counted apart from values. */
const typeNames = new Set();

/** The names a module exports, read from its syntax (explicit export lists and declarations). */
function exportedNames(file) {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const names = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) {
        names.push(element.name.text);
        if (statement.isTypeOnly || element.isTypeOnly) typeNames.add(element.name.text);
      }
    } else if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      if (ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) names.push(d.name.getText(source));
      else if (statement.name) {
        names.push(statement.name.text);
        if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) typeNames.add(statement.name.text);
      }
    }
  }
  return names;
}

function* files(dir, test = () => true) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path, test);
    else if (test(name)) yield path;
  }
}

const isCode = (name) => /\.(m?ts|tsx|mjs|cjs|js)$/.test(name) && !name.endsWith(".d.ts");
const packageDirs = readdirSync(join(root, "packages"))
  .map((name) => join(root, "packages", name))
  .filter((dir) => existsSync(join(dir, "package.json")));
const packages = packageDirs.map((dir) => ({ dir, ...entriesOf(dir) }));
const entryBySource = new Map(packages.flatMap((pkg) => pkg.entries.map((entry) => [entry.source, entry.specifier])));
const entryBySpecifier = new Set(packages.flatMap((pkg) => pkg.entries.map((entry) => entry.specifier)));

/** Where a file sits, as the places this report counts. */
function placeOf(file) {
  const rel = relative(root, file);
  const pkg = /^packages\/([^/]+)\/(src|test|README\.md)/.exec(rel);
  if (pkg) return pkg[2] === "src" ? `${pkg[1]} src` : pkg[2] === "test" ? `${pkg[1]} tests` : `${pkg[1]} README`;
  const top = rel.split("/")[0];
  return { test: "test/", examples: "examples/", eval: "eval/", bench: "bench/", scripts: "scripts/", docs: "docs", "README.md": "README" }[top] ?? top;
}

const importPattern = /(?:import|export)\s+(?:type\s+)?(?:[\w$]+\s*,\s*)?\{([^}]*)\}\s*from\s*["']([^"']+)["']|import\s+\*\s+as\s+[\w$]+\s+from\s*["']([^"']+)["']/g;

/** entry specifier -> name -> Set of places */
const uses = new Map();
function record(entry, name, place) {
  if (!uses.has(entry)) uses.set(entry, new Map());
  const byName = uses.get(entry);
  if (!byName.has(name)) byName.set(name, new Set());
  byName.get(name).add(place);
}

function scan(file, text) {
  const place = placeOf(file);
  for (const match of text.matchAll(importPattern)) {
    const spec = match[2] ?? match[3];
    let entry = entryBySpecifier.has(spec) ? spec : undefined;
    if (!entry && spec.startsWith(".")) {
      const target = resolve(dirname(file), spec).replace(/\.js$/, "");
      entry = entryBySource.get(`${target}.ts`) ?? entryBySource.get(join(target, "index.ts"));
    }
    if (!entry) continue;
    if (match[3]) {
      record(entry, "*", place);
      continue;
    }
    for (const part of match[1].split(",")) {
      const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0].trim();
      if (name) record(entry, name, place);
    }
  }
}

for (const dir of ["packages", "test", "examples", "eval", "bench", "scripts"]) {
  for (const file of files(join(root, dir), isCode)) scan(file, readFileSync(file, "utf8"));
}
const markdown = [join(root, "README.md"), ...files(join(root, "docs"), (n) => n.endsWith(".md")), ...packageDirs.map((d) => join(d, "README.md"))];
for (const file of markdown.filter((f) => existsSync(f))) {
  const blocks = [...readFileSync(file, "utf8").matchAll(/```ts[^\n]*\n([\s\S]*?)```/g)].map((m) => m[1]);
  scan(file, blocks.join("\n"));
}

let total = 0;
let totalUnused = 0;
for (const pkg of packages) {
  const ownSrc = `${pkg.name.split("/")[1]} src`;
  for (const entry of pkg.entries) {
    const names = exportedNames(entry.source);
    const byName = uses.get(entry.specifier) ?? new Map();
    const outside = (name) => [...(byName.get(name) ?? [])].filter((place) => place !== ownSrc);
    const used = names.filter((name) => outside(name).length > 0);
    const testsOnly = used.filter((name) => outside(name).every((place) => place.endsWith("tests") || place === "test/"));
    total += names.length;
    totalUnused += names.length - used.length;
    const values = names.filter((name) => !typeNames.has(name)).length;
    console.log(`${entry.specifier}: ${names.length} exports (${values} values, ${names.length - values} types), ${used.length} used outside its src (${testsOnly.length} of them only by tests), ${names.length - used.length} used nowhere outside`);
    if (list) for (const name of names) console.log(`  ${name}: ${outside(name).sort().join(", ") || "-"}`);
    else if (unusedOnly) for (const name of names.filter((n) => !used.includes(n))) console.log(`  ${name}`);
    const missing = [...byName.keys()].filter((name) => name !== "*" && !names.includes(name));
    if (missing.length > 0) console.log(`  imported but not exported: ${missing.join(", ")}`);
  }
}
console.log(`All entry points: ${total} exports, ${totalUnused} used nowhere outside their package's src`);
