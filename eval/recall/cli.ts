// pnpm eval recall — evidence recall of each system's view after a long multi-session chat.
//   pnpm eval recall                            LoCoMo (60 questions per conversation) and the generator, 4,000 and 8,000 tokens
//   pnpm eval recall --max-questions 0          every LoCoMo question (1,536; about 3× longer)
//   pnpm eval recall --source generated --budget 4000 --markdown --out /tmp/report
//   pnpm eval recall --source locomo-haystack   LoCoMo chats each woven with 3 others (about 4× longer; 30 questions per chat)
//   pnpm eval recall --ids uuid                 every turn's id a UUID, as a LangGraph graph gives messages without one
// (also `pnpm eval:recall …`). See docs/evaluation.md, "Recall".
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { markdownTable, terminalTable } from "../tables.js";
import { generatedSource } from "./generator.js";
import { haystackSource } from "./haystack.js";
import { locomoSource } from "./locomo.js";
import { runRecall, type RecallRow } from "./run.js";
import { withUuidIds } from "./uuid-ids.js";
import { bm25System, buildContextNoRecallSystem, buildContextSystem, nodeStoreSystem, nodeSummarizerSystem, RECALL_SYSTEMS, trimMessagesSystem } from "./systems.js";
import type { RecallSource } from "./types.js";

/** Questions per LoCoMo conversation by default, every k-th in order (the generator's are all used). */
export const DEFAULT_MAX_QUESTIONS = 60;
/** Other chats woven into each LoCoMo chat by the `locomo-haystack` source, and its questions per chat by default. */
export const HAYSTACK = { others: 3, maxQuestions: 30 };
/** Issue 26's targets for contextview (held against buildContext; the node's rows are printed beside it, and recall off for scale). */
export const TARGETS = { bm25: 0.9, trimMessages: 3 };

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function recallTable(rows: readonly RecallRow[]): Record<string, string>[] {
  return rows.map((r) => ({ source: r.source, budget: String(r.promptBudget), system: r.system, questions: String(r.questions), "evidence recall": pct(r.recall), "with its date": pct(r.dated), "mean view tokens": r.meanViewTokens.toFixed(0), "views over budget": String(r.overBudget), ...(r.errors ? { errors: `${r.errors} (${r.firstError ?? ""})` } : {}) }));
}

export function ratioTable(rows: readonly RecallRow[]): Record<string, string>[] {
  const keys = [...new Set(rows.map((r) => `${r.source}\u0000${r.promptBudget}`))];
  return keys.flatMap((key) => {
    const [source, budget] = key.split("\u0000") as [string, string];
    const of = (name: string) => rows.find((r) => r.source === source && String(r.promptBudget) === budget && r.system === name)?.recall ?? Number.NaN;
    return [buildContextSystem, nodeStoreSystem, nodeSummarizerSystem, buildContextNoRecallSystem].map((system) => {
      const cv = of(system.name);
      const vsBm25 = cv / of(bm25System.name);
      const vsTrim = cv / of(trimMessagesSystem.name);
      return { source, budget, system: system.name, "contextview ÷ BM25": `${vsBm25.toFixed(2)} (target ≥ ${TARGETS.bm25})`, "contextview ÷ trimMessages": `${vsTrim.toFixed(2)} (target ≥ ${TARGETS.trimMessages})`, met: vsBm25 >= TARGETS.bm25 && vsTrim >= TARGETS.trimMessages ? "yes" : "no" };
    });
  });
}

export async function recallMain(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      source: { type: "string", multiple: true },
      budget: { type: "string", multiple: true },
      "max-questions": { type: "string" },
      out: { type: "string", default: "eval-report" },
      markdown: { type: "boolean", default: false },
      ids: { type: "string", default: "source" },
    },
  });
  const wanted = values.source ?? ["locomo", "generated"];
  const budgets = (values.budget ?? ["4000", "8000"]).map(Number);
  const max = values["max-questions"] === undefined ? undefined : Number(values["max-questions"]);
  if (budgets.some((b) => !Number.isInteger(b) || b <= 0) || (max !== undefined && (!Number.isInteger(max) || max < 0))) throw new Error("Expected --budget and --max-questions to be integers (--max-questions 0: all)");
  if (values.ids !== "source" && values.ids !== "uuid") throw new Error(`Expected --ids to be "source" (the sources' own turn ids, the default) or "uuid", got "${values.ids}"`);
  // locomo-haystack is asked for by name: about 4× longer chats, a run of its own.
  const loaders: Record<string, () => RecallSource> = { locomo: locomoSource, generated: () => generatedSource(), "locomo-haystack": () => haystackSource(locomoSource(), HAYSTACK.others) };
  const unknown = wanted.filter((name) => !(name in loaders));
  if (unknown.length) throw new Error(`unknown source ${unknown.join(", ")}; sources: ${Object.keys(loaders).join(", ")}`);
  const command = `pnpm eval recall${argv.length ? ` ${argv.join(" ")}` : ""}`;
  const started = performance.now();
  const rows: RecallRow[] = [];
  const sources: { name: string; description: string; conversations: number; turns: number[]; questions: number; sampled: number }[] = [];
  for (const name of wanted) {
    const loaded = (loaders[name] as () => RecallSource)();
    const source = values.ids === "uuid" ? withUuidIds(loaded) : loaded;
    // The generator's questions are few (two per planted fact): all of them are used.
    const perSource = max ?? (name === "locomo-haystack" ? HAYSTACK.maxQuestions : DEFAULT_MAX_QUESTIONS);
    const perConversation = perSource === 0 || name === "generated" ? undefined : perSource;
    const sourceRows = await runRecall(source, RECALL_SYSTEMS, budgets, perConversation, (label) => process.stderr.write(`  ${label}\n`));
    rows.push(...sourceRows);
    sources.push({ name, description: source.description, conversations: source.conversations.length, turns: source.conversations.map((c) => c.turns.length), questions: source.conversations.reduce((n, c) => n + c.questions.length, 0), sampled: sourceRows[0]?.questions ?? 0 });
  }
  const seconds = (performance.now() - started) / 1000;
  const out = resolve(values.out);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "recall.json"), `${JSON.stringify({ command, seconds, targets: TARGETS, sources, rows, ratios: ratioTable(rows) }, null, 2)}\n`);
  console.log(`\n${command} — ${seconds.toFixed(1)} s`);
  for (const s of sources) console.log(`  ${s.name}: ${s.description}; ${s.conversations} conversations of ${Math.min(...s.turns)}–${Math.max(...s.turns)} turns; ${s.sampled} of ${s.questions} questions`);
  for (const s of sources) {
    for (const budget of budgets) {
      console.log(`\n${s.name}, promptBudget ${budget} (contextWindow 32768):\n`);
      console.log(terminalTable(recallTable(rows.filter((r) => r.source === s.name && r.promptBudget === budget))));
    }
  }
  console.log(`\nRatios of evidence recall (issue 26 targets: ÷ BM25 ≥ ${TARGETS.bm25}, ÷ trimMessages ≥ ${TARGETS.trimMessages}):\n`);
  console.log(terminalTable(ratioTable(rows)));
  if (values.markdown) console.log(`\n${markdownTable(recallTable(rows))}\n\n${markdownTable(ratioTable(rows))}`);
  console.log(`\nJSON: ${join(out, "recall.json")}`);
}

if (process.argv[1]?.endsWith("recall/cli.ts")) {
  recallMain(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
