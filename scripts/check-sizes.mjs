// Long functions hide their stages and long files hold more than one concept: list every
// source function over MAX_FUNCTION_LINES lines and every source file over MAX_FILE_LINES
// lines under packages/*/src. A `// size: <reason>` comment exempts one: on the line before
// a function (or before the statement that declares it), or among the first lines of a file.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const MAX_FUNCTION_LINES = 80;
const MAX_FILE_LINES = 300;
/** How far from the top of a file a file-wide `// size:` comment may stand. */
const FILE_HEADER_LINES = 10;
const EXEMPT = /^\s*\/\/\s*size:\s*\S/;

const root = new URL("..", import.meta.url).pathname;
const problems = [];

function* sources(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.(m|c)?tsx?$/.test(name) && !name.endsWith(".d.ts")) yield path;
  }
}

/** The name a reader would search for: the function's own, or the variable/property it is assigned to. */
function nameOf(node, file) {
  if (node.name) return node.name.getText(file);
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) return parent.name.getText(file);
  return "(anonymous)";
}

/** True when the line before the node, or before the statement that holds it, is a `// size:` comment. */
function exempt(node, file, lines) {
  for (let current = node; current && !ts.isSourceFile(current); current = current.parent) {
    const line = file.getLineAndCharacterOfPosition(current.getStart(file)).line;
    if (line > 0 && EXEMPT.test(lines[line - 1])) return true;
    // Only walk up through the declaration that holds the function, not its enclosing blocks.
    if (ts.isBlock(current.parent) || ts.isSourceFile(current.parent)) break;
  }
  return false;
}

for (const pkg of readdirSync(join(root, "packages"))) {
  const dir = join(root, "packages", pkg, "src");
  if (!statSync(join(root, "packages", pkg)).isDirectory()) continue;
  let exists = true;
  try {
    statSync(dir);
  } catch {
    exists = false;
  }
  if (!exists) continue;
  for (const path of sources(dir)) {
    const text = readFileSync(path, "utf8");
    const lines = text.split("\n");
    const name = relative(root, path);
    const count = text.endsWith("\n") ? lines.length - 1 : lines.length;
    if (count > MAX_FILE_LINES && !lines.slice(0, FILE_HEADER_LINES).some((line) => EXEMPT.test(line))) {
      problems.push(`${name}: ${count} lines (over ${MAX_FILE_LINES}; split it, or say why with a \`// size:\` comment at the top)`);
    }
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
        const end = file.getLineAndCharacterOfPosition(node.end).line;
        const length = end - start + 1;
        if (length > MAX_FUNCTION_LINES && !exempt(node, file, lines)) {
          problems.push(`${name}:${start + 1}: function ${nameOf(node, file)} has ${length} lines (over ${MAX_FUNCTION_LINES}; name its stages, or say why with a \`// size:\` comment)`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
}

if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log("sizes: ok");
