// Runs every recall system over a source at each budget and aggregates evidence recall.
import type { BaseMessage } from "@langchain/core/messages";
import { conversationMessages, datedRecall, evidenceRecall, questionMessage, viewText } from "./measure.js";
import { count, estimator, limitOf, type RecallSystem } from "./systems.js";
import type { RecallConversation, RecallQuestion, RecallSource } from "./types.js";

export interface RecallRow {
  source: string;
  promptBudget: number;
  limit: number;
  system: string;
  settings: string;
  questions: number;
  /** Mean over questions of the share of their evidence turns visible. */
  recall: number;
  /** Mean over questions of the share of their evidence turns visible with their date (see `turnDated`). */
  dated: number;
  /** The same by question category (LoCoMo's, or the generator's overlap / paraphrase). */
  byCategory: Record<string, { questions: number; recall: number }>;
  meanViewTokens: number;
  overBudget: number;
  errors: number;
  firstError?: string;
  ms: number;
}

/** Every `step`-th question of each conversation (deterministic), all when `maxPerConversation` is absent. */
export function sampleQuestions(conversation: RecallConversation, maxPerConversation?: number): RecallQuestion[] {
  const all = conversation.questions;
  if (maxPerConversation === undefined || all.length <= maxPerConversation) return all;
  const step = all.length / maxPerConversation;
  return Array.from({ length: maxPerConversation }, (_, i) => all[Math.floor(i * step)] as RecallQuestion);
}

export async function runRecall(source: RecallSource, systems: readonly RecallSystem[], budgets: readonly number[], maxPerConversation?: number, onStep?: (label: string) => void): Promise<RecallRow[]> {
  const rows: RecallRow[] = [];
  const prepared = source.conversations.map((c) => ({ conversation: c, history: conversationMessages(c), turns: new Map(c.turns.map((t) => [t.id, t])), sessionStarts: sessionStarts(c), questions: sampleQuestions(c, maxPerConversation) }));
  for (const promptBudget of budgets) {
    const limit = limitOf(promptBudget);
    for (const system of systems) {
      onStep?.(`${source.name} · ${promptBudget} · ${system.name}`);
      const started = performance.now();
      const recalls: { category: string; recall: number; dated: number }[] = [];
      let tokens = 0;
      let over = 0;
      let errors = 0;
      let firstError: string | undefined;
      for (const { conversation, history, turns, sessionStarts, questions } of prepared) {
        const viewFor = system.prepare(conversation, history, promptBudget);
        for (const question of questions) {
          let view: BaseMessage[] = [];
          try {
            view = await viewFor(questionMessage(question));
          } catch (error) {
            errors += 1;
            firstError ??= error instanceof Error ? `${error.name}: ${error.message.slice(0, 200)}` : String(error);
          }
          const viewTokens = estimator.estimateMessages(view);
          if (view.length > 0 && viewTokens !== count(view) && !firstError) firstError = `counter mismatch: ${viewTokens} ≠ ${count(view)}`;
          tokens += viewTokens;
          if (viewTokens > limit) over += 1;
          const shown = viewText(view);
          recalls.push({ category: question.category, recall: evidenceRecall(question, turns, shown), dated: datedRecall(question, turns, shown, sessionStarts) });
        }
      }
      const byCategory: RecallRow["byCategory"] = {};
      for (const category of [...new Set(recalls.map((r) => r.category))].sort()) {
        const of = recalls.filter((r) => r.category === category);
        byCategory[category] = { questions: of.length, recall: mean(of.map((r) => r.recall)) };
      }
      rows.push({
        source: source.name,
        promptBudget,
        limit,
        system: system.name,
        settings: system.settings,
        questions: recalls.length,
        recall: mean(recalls.map((r) => r.recall)),
        dated: mean(recalls.map((r) => r.dated)),
        byCategory,
        meanViewTokens: recalls.length ? tokens / recalls.length : 0,
        overBudget: over,
        errors,
        ...(firstError === undefined ? {} : { firstError }),
        ms: performance.now() - started,
      });
    }
  }
  return rows;
}

/** The id of each session's first turn (the one whose message opens with the session's date). */
function sessionStarts(conversation: RecallConversation): Map<number, string> {
  const starts = new Map<number, string>();
  for (const turn of conversation.turns) if (!starts.has(turn.session)) starts.set(turn.session, turn.id);
  return starts;
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, x) => a + x, 0) / xs.length : 0);
