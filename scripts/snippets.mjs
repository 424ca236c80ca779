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
// `wrap: true` puts a block's statements (not its imports) in an async function, for
// CommonJS projects where top-level await does not compile (not the root README's blocks,
// which must run as written in both).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

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
import type { ContextStore, SavedMemory } from "@contextview/core";

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

function declares(code, name) {
  return new RegExp(`(?:const|let|var|function|class)\\s+${name}\\b|import\\s+[^;]*\\b${name}\\b[^;]*from`).test(code);
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
    const used = isDoc ? CONTEXT_NAMES.filter((name) => new RegExp(`\\b${name}\\b`).test(snippet.code) && !declares(snippet.code, name)) : [];
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
 * What the root README's install line (its first `npm install …`) lacks: each package a
 * README ts block imports, and `@contextview/inspect` when the README runs `npx contextview`.
 * @returns `{ line, missing }`, `line` undefined when the README has no install line
 */
export function readmeInstallGaps() {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const line = /^npm install (.+)$/m.exec(readme)?.[1];
  const listed = new Set((line ?? "").split(/\s+/).map((word) => word.replace(/(?<=.)@[^/]*$/, "")));
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
