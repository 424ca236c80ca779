import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import ts from "typescript";

const SRC = join(__dirname, "../src");

/** Every package a module and the modules it imports (relatively, transitively) import. */
function packagesImportedFrom(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles) {
      if (fileName.startsWith(".")) visit(resolve(dirname(file), fileName).replace(/\.js$/, ".ts"));
      else packages.add(fileName);
    }
  };
  visit(join(SRC, entry));
  return packages;
}

// `langchain` is an optional peer: only the middleware subpath may load it.
describe("entry points of @contextview/langgraph", () => {
  it("the root never imports langchain", () => {
    expect([...packagesImportedFrom("index.ts")].filter((name) => name === "langchain" || name.startsWith("langchain/"))).toEqual([]);
  });

  it("/measure never imports langchain", () => {
    expect([...packagesImportedFrom("measure/index.ts")].filter((name) => name === "langchain" || name.startsWith("langchain/"))).toEqual([]);
  });

  it("/middleware imports langchain", () => {
    expect(packagesImportedFrom("middleware.ts")).toContain("langchain");
  });
});
