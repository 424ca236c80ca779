import type { BaseMessage } from "@langchain/core/messages";
import { runEvaluation, type EvaluationOptions, type EvaluationResult } from "./run.js";
import { checkTokenizers, type TokenizerReport } from "./tokenizer-check.js";

/** Systems whose views the tokenizer check measures: contextview's own. */
const CONTEXTVIEW = /^contextview/;

/** Options of {@link evaluate}. */
export interface EvaluateOptions extends Omit<EvaluationOptions, "onRun"> {
  /** Compare the default estimator with js-tiktoken over the fixtures and contextview's views. */
  tokenizer?: boolean;
}

/** What `pnpm eval` writes to results.json. */
export interface EvaluationReport extends EvaluationResult {
  tokenizer?: TokenizerReport;
}

/** Runs the evaluation and, when asked, the tokenizer check over the same fixtures and views. */
export async function evaluate(options: EvaluateOptions): Promise<EvaluationReport> {
  const views: { view: readonly BaseMessage[]; limit: number; tools: readonly unknown[] }[] = [];
  const { result, loaded } = await runEvaluation({
    ...options,
    onRun: ({ fixture, system, run, limit }) => {
      if (options.tokenizer && CONTEXTVIEW.test(system)) for (const call of run.calls) views.push({ view: call.view, limit, tools: fixture.tools });
    },
  });
  if (!options.tokenizer) return result;
  const tokenizer = checkTokenizers({ conversations: [...loaded].map(([fixture, l]) => ({ fixture, messages: l.messages })), views });
  return { ...result, tokenizer };
}
