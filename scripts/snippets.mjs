// Every ```ts block of README.md, docs/*.md and packages/*/README.md, as TypeScript files.
//
// - ```ts              checked: compiled as its own module.
// - ```ts fragment     not checked: a piece of a larger program, said so where it stands.
// - ```ts continued    checked together with the checked blocks before it in the same file
//                      (it goes on where they stopped, using what they defined).
// Blocks of the root README.md must be complete programs. A block of docs/ may use the
// reader's own objects without defining them, by the names below (`model`, `tools`,
// `store`, …): each such name it uses and does not declare is imported from a declared
// context module. Everything else it uses, it imports.
//
// A reader copies a block into a fresh project, so what it does not define must be said
// where it stands: a block that uses a name it neither declares nor imports (a global
// such as `console` aside), and every fragment, starts with a comment line
// `// assumes: model, tools, checkpointer from the quick start` naming each such name
// (`assumptionProblems`; a `continued` block may also use what the blocks before it defined).
//
// `wrap: true` puts a block's statements (not its imports) in an async function, for
// CommonJS projects where top-level await does not compile (not the root README's blocks,
// which must run as written in both).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const root = new URL("..", import.meta.url).pathname;

/** Joins each `continued` block to the checked block before it (in the same file). */
function joinContinued(snippets) {
  const out = [];
  for (const snippet of snippets) {
    if (snippet.fragment) continue;
    const previous = out.at(-1);
    if (snippet.continued && previous?.file === snippet.file) {
      previous.segments.push({ from: previous.code.split("\n").length + 1, line: snippet.line });
      previous.code += `\n${snippet.code}`;
    } else {
      out.push({ ...snippet, segments: [{ from: 1, line: snippet.line }] });
    }
  }
  return out;
}

/** The reader's own objects a docs snippet may use without defining, and their types. */
export const CONTEXT = `import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { ContextStore } from "@contextview/core";
import type { SavedMemory } from "@contextview/core/routing";

/** Your chat model (ChatOpenAI, ChatAnthropic, …). */
export declare const model: BaseChatModel & Required<Pick<BaseChatModel, "bindTools">>;
/** Your tools. */
export declare const tools: StructuredToolInterface[];
export declare const searchTransactions: StructuredToolInterface, categorize: StructuredToolInterface, readNote: StructuredToolInterface;
export declare const exportCsv: StructuredToolInterface, deleteUserData: StructuredToolInterface;
/** A second chat model to fall back on. */
export declare const fallbackModel: BaseChatModel & Required<Pick<BaseChatModel, "bindTools">>;
/** A context store: SqliteContextStore.nextTo(checkpointer) or new InMemoryContextStore(). */
export declare const store: ContextStore;
/** Your LangGraph checkpointer. */
export declare const checkpointer: BaseCheckpointSaver;
/** The graph state and config a node receives. */
export declare const state: { messages: BaseMessage[] };
export declare const config: RunnableConfig;
export declare const userId: string;
export declare const threadId: string;
/** Memories you saved for the user. */
export declare const savedMemories: SavedMemory[];
`;
const CONTEXT_NAMES = [
  ...["model", "fallbackModel", "tools", "store", "checkpointer", "state", "config", "userId", "threadId", "savedMemories"],
  ...["searchTransactions", "categorize", "readNote", "exportCsv", "deleteUserData"],
];

function markdownFiles() {
  const files = ["README.md"];
  for (const name of readdirSync(join(root, "docs")).sort()) if (name.endsWith(".md")) files.push(join("docs", name));
  for (const pkg of readdirSync(join(root, "packages")).sort()) {
    try {
      readFileSync(join(root, "packages", pkg, "README.md"));
      files.push(join("packages", pkg, "README.md"));
    } catch {
      // a package without a README
    }
  }
  return files;
}

/** @returns {{ file: string, line: number, fragment: boolean, code: string }[]} */
export function readSnippets() {
  const snippets = [];
  for (const file of markdownFiles()) {
    const lines = readFileSync(join(root, file), "utf8").split("\n");
    for (let i = 0; i < lines.length; i++) {
      const open = /^```(ts|typescript)(?:\s+(.*))?$/.exec(lines[i].trim());
      if (!open) continue;
      const start = i + 1;
      let end = start;
      while (end < lines.length && lines[end].trim() !== "```") end++;
      const flags = (open[2] ?? "").split(/\s+/);
      snippets.push({ file, line: start + 1, fragment: flags.includes("fragment"), continued: flags.includes("continued"), code: lines.slice(start, end).join("\n") });
      i = end;
    }
  }
  return snippets;
}

/** Where an identifier names a property, not a variable: `a.name`, `{ name: … }`, `{ name: b } = …`, a member. */
function isPropertyName(node) {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) || ts.isQualifiedName(parent)) return parent.name === node || parent.right === node;
  if (ts.isPropertyAssignment(parent) || ts.isMethodDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isPropertySignature(parent)) return parent.name === node;
  if (ts.isGetAccessor(parent) || ts.isSetAccessor(parent) || ts.isMethodSignature(parent) || ts.isEnumMember(parent)) return parent.name === node;
  if (ts.isBindingElement(parent) || ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent)) return parent.propertyName === node;
  return ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent) || ts.isJsxAttribute(parent) || ts.isTypeReferenceNode(parent);
}

/**
 * The names a block uses as values without declaring or importing them (globals of
 * JavaScript and Node aside), in order of first use: resolved by TypeScript's scopes, so a
 * callback's `(state) => …` parameter is not a use of the reader's `state`.
 */
export function freeNames(code) {
  const name = "block.ts";
  const source = ts.createSourceFile(name, `${code}\nexport {};\n`, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const host = ts.createCompilerHost({});
  host.getSourceFile = (file) => (file === name ? source : undefined);
  const program = ts.createProgram([name], { noLib: true, noResolve: true, types: [] }, host);
  const checker = program.getTypeChecker();
  const free = new Set();
  const visit = (node) => {
    if (ts.isIdentifier(node) && !isPropertyName(node) && !(node.text in globalThis)) {
      // `{ store }` names a property and uses the variable `store`: ask for the variable.
      const shorthand = ts.isShorthandPropertyAssignment(node.parent) && node.parent.name === node;
      const symbol = shorthand ? checker.getShorthandAssignmentValueSymbol(node.parent) : checker.getSymbolAtLocation(node);
      if (symbol === undefined) free.add(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...free];
}

/** The names a block's first line says it assumes (`// assumes: …`), or undefined without such a line. */
export function assumedNames(code) {
  const first = code.split("\n").find((line) => line.trim() !== "");
  const said = /^\s*\/\/\s*assumes:(.*)$/.exec(first ?? "")?.[1];
  return said === undefined ? undefined : new Set(said.match(/[A-Za-z_$][\w$]*/g) ?? []);
}

/**
 * Blocks that use what they do not define without saying so: a fragment without an
 * `// assumes:` first line, and any block whose free names (see {@link freeNames}) that
 * line does not name. A `continued` block may use what the checked blocks before it in
 * its file defined.
 * @returns one line per problem, `file:line: …`
 */
export function assumptionProblems() {
  const problems = [];
  let before = { file: "", code: "" };
  for (const snippet of readSnippets()) {
    const place = `${snippet.file}:${snippet.line}`;
    const said = assumedNames(snippet.code);
    if (snippet.fragment && said === undefined) {
      problems.push(`${place}: a \`ts fragment\` must start with \`// assumes: …\`, naming what it uses from elsewhere (e.g. \`// assumes: model, tools from the quick start\`)`);
      continue;
    }
    const defined = snippet.continued && before.file === snippet.file ? new Set(freeNamesDefinedBy(before.code)) : new Set();
    const unsaid = freeNames(snippet.code).filter((name) => !defined.has(name) && !said?.has(name));
    if (unsaid.length > 0) {
      const names = unsaid.map((name) => `\`${name}\``).join(", ");
      problems.push(`${place}: uses ${names} without defining ${unsaid.length === 1 ? "it" : "them"}; ${said === undefined ? "start the block with" : "name each in"} \`// assumes: ${unsaid.join(", ")} …\``);
    }
    if (!snippet.fragment) before = snippet.continued && before.file === snippet.file ? { file: snippet.file, code: `${before.code}\n${snippet.code}` } : { file: snippet.file, code: snippet.code };
  }
  return problems;
}

/** The top-level names a block declares or imports. */
function freeNamesDefinedBy(code) {
  const source = ts.createSourceFile("before.ts", code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const names = [];
  const bind = (name) => {
    if (ts.isIdentifier(name)) names.push(name.text);
    else for (const element of name.elements ?? []) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) for (const declaration of statement.declarationList.declarations) bind(declaration.name);
    else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name) names.push(statement.name.text);
    else if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.name) names.push(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.push(bindings.name.text);
      else for (const element of bindings?.elements ?? []) names.push(element.name.text);
    }
  }
  return names;
}

/**
 * Splits a block into its import declarations (wherever they stand at the top level; a
 * `continued` block brings its own) and the other statements, `export` removed from them.
 */
function splitImports(code) {
  const imports = [];
  const body = [];
  let inImport = false;
  for (const line of code.split("\n")) {
    const ends = /from\s+["'][^"']+["'];?\s*$/.test(line) || /^import\s+["'][^"']+["'];?\s*$/.test(line);
    if (inImport) {
      imports.push(line);
      if (ends) inImport = false;
    } else if (/^import\s/.test(line)) {
      imports.push(line);
      inImport = !ends;
    } else {
      body.push(line.replace(/^export\s+(?=(?:const|let|function|class|async)\b)/, ""));
    }
  }
  return { imports: imports.join("\n"), body: body.join("\n") };
}

/**
 * Writes the checked snippets as .ts files into `outDir` (plus `snippet-context.ts`).
 * @returns the files written, each with the markdown place it came from and the number
 *   of lines added before the block's first line
 */
export function writeSnippets(outDir, { wrap = false } = {}) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "snippet-context.ts"), CONTEXT);
  const written = [];
  const all = readSnippets();
  const fragments = all.filter((snippet) => snippet.fragment).length;
  for (const snippet of joinContinued(all)) {
    const isDoc = snippet.file !== "README.md";
    const free = isDoc ? new Set(freeNames(snippet.code)) : new Set();
    const used = CONTEXT_NAMES.filter((name) => free.has(name));
    const head = used.length > 0 ? [`import { ${used.join(", ")} } from "./snippet-context.js";`] : [];
    let text;
    // The root README's blocks run as written in either module system: never wrapped.
    if (wrap && isDoc) {
      const { imports, body } = splitImports(snippet.code);
      text = [...head, imports, "export async function snippet(): Promise<void> {", body, "}"].join("\n");
    } else {
      text = [...head, snippet.code, "export {};"].join("\n");
    }
    const name = `${snippet.file.replace(/[/.]/g, "_")}_L${snippet.line}.ts`;
    writeFileSync(join(outDir, name), `${text}\n`);
    written.push({ name, file: snippet.file, segments: snippet.segments, offset: head.length });
  }
  return { written, fragments, blocks: all.length - fragments };
}

/** Rewrites tsc's `file.ts(line,col)` into the markdown place of the block. */
export function toMarkdownPlaces(output, written, outDir) {
  let text = output;
  for (const { name, file, segments, offset } of written) {
    const pattern = new RegExp(`(?:[^\\s(]*/)?${name.replace(/\./g, "\\.")}\\((\\d+),(\\d+)\\)`, "g");
    text = text.replace(pattern, (_all, line, col) => {
      const at = Number(line) - offset;
      const segment = segments.filter((s) => s.from <= at).at(-1) ?? segments[0];
      return `${file}:${segment.line + at - segment.from}:${col} (${relative(root, join(outDir, name))})`;
    });
  }
  return text;
}

/** The package a bare import specifier names: `@scope/name` or `name` (`node:` built-ins: undefined). */
function packageOf(specifier) {
  if (specifier.startsWith("node:") || specifier.startsWith(".")) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/**
 * The packages an `npm install …` command names: registry names as they are (a version
 * dropped), and our tarballs by the package each holds (`…/contextview-langgraph.tgz` is
 * `@contextview/langgraph`); flags left out.
 */
export function installedPackages(command) {
  return command
    .split(/\s+/)
    .filter((word) => word !== "" && !word.startsWith("-"))
    .map((word) => {
      const tarball = /(?:^|\/)contextview-([a-z]+)\.tgz$/.exec(word);
      return tarball ? `@contextview/${tarball[1]}` : word.replace(/(?<=.)@[^/]*$/, "");
    });
}

/**
 * What the root README's install line (its first `npm install …`, `\` continuations
 * joined) lacks: each package a README ts block imports, and `@contextview/inspect` when the
 * README runs `npx contextview`.
 * @returns `{ line, missing }`, `line` undefined when the README has no install line
 */
export function readmeInstallGaps() {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const line = /^npm install ((?:.*\\\n)*.*)$/m.exec(readme)?.[1].replace(/\\\n/g, " ");
  const listed = new Set(installedPackages(line ?? ""));
  const wanted = new Set();
  for (const snippet of readSnippets().filter((s) => s.file === "README.md" && !s.fragment)) {
    for (const [, specifier] of snippet.code.matchAll(/\bfrom\s+["']([^"']+)["']/g)) {
      const name = packageOf(specifier);
      if (name !== undefined) wanted.add(name);
    }
  }
  if (/npx contextview\b/.test(readme)) wanted.add("@contextview/inspect");
  return { line, missing: [...wanted].filter((name) => !listed.has(name)).sort() };
}
