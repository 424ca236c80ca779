// Type-checks every ```ts block of README.md, docs/ and packages/*/README.md against the
// sources (blocks marked `ts fragment` are counted, not checked); that every block using a
// name it does not define, and every fragment, says so on its first line (`// assumes: …`);
// and that README.md's install line names every package its quick starts import. See
// scripts/snippets.mjs.
// The packed packages are checked the same way, as ESM and CommonJS, by scripts/consumer-test.mjs.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { assumptionProblems, readmeInstallGaps, toMarkdownPlaces, writeSnippets } from "./snippets.mjs";

const root = new URL("..", import.meta.url).pathname;
const unsaid = assumptionProblems();
if (unsaid.length > 0) {
  console.error(unsaid.join("\n"));
  console.error(`Doc snippets: ${unsaid.length} blocks use what they do not define without an \`// assumes: …\` first line that names it`);
  process.exit(1);
}
const outDir = join(root, "node_modules/.cache/contextview-snippets");
rmSync(outDir, { recursive: true, force: true });
const { written, fragments, blocks } = writeSnippets(outDir);
// The workspace's own mapping of every package and subpath to its source, made absolute.
const basePaths = JSON.parse(readFileSync(join(root, "tsconfig.base.json"), "utf8")).compilerOptions.paths;
const paths = Object.fromEntries(Object.entries(basePaths).map(([specifier, files]) => [specifier, files.map((file) => join(root, file))]));
writeFileSync(
  join(outDir, "tsconfig.json"),
  JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2022", "DOM"],
      module: "esnext",
      moduleResolution: "bundler",
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ["node"],
      paths,
    },
    include: ["*.ts"],
  }),
);
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const result = spawnSync(process.execPath, [tsc, "-p", outDir], { encoding: "utf8" });
if (result.status !== 0) {
  console.error(toMarkdownPlaces(`${result.stdout}${result.stderr}`, written, outDir));
  console.error(`Doc snippets: tsc failed (${blocks} blocks checked as ${written.length} programs, ${fragments} marked as fragments)`);
  process.exit(1);
}
const { line, missing } = readmeInstallGaps();
if (line === undefined || missing.length > 0) {
  console.error(line === undefined ? "README.md has no `npm install …` line" : `README.md's \`npm install\` line lacks ${missing.join(", ")}, which its quick starts import`);
  process.exit(1);
}
console.log(`Doc snippets: ${blocks} blocks type-checked as ${written.length} programs, ${fragments} marked as fragments; each says what it assumes`);
