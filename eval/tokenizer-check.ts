import { createEstimator, DEFAULT_BUDGET, type Estimator } from "@contextview/core";
import { createTiktokenEstimator } from "@contextview/core/estimators";
import { countImages } from "../packages/core/src/messages.js";
import type { BaseMessage } from "@langchain/core/messages";
import { Tiktoken } from "js-tiktoken/lite";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import o200k from "js-tiktoken/ranks/o200k_base";
import { quantile } from "./metrics.js";

/** Encodings compared with the default estimator. */
export const ENCODINGS = ["o200k_base", "cl100k_base"] as const;
export type EncodingName = (typeof ENCODINGS)[number];

/** A distribution of estimated/actual ratios. */
export interface RatioDistribution {
  samples: number;
  min: number;
  p5: number;
  p50: number;
  p95: number;
  max: number;
}

/** How the default estimator compares with one real tokenizer. */
export interface EncodingCheck {
  encoding: EncodingName;
  /** Per message of every fixture (messages with images left out: both sides charge the same image allowance). */
  messages: RatioDistribution;
  /** Per message, by fixture. */
  byFixture: Record<string, RatioDistribution>;
  /** Per contextview view (the whole prompt: messages and tool schemas). */
  views: RatioDistribution;
  /** Largest actual − estimated tokens over the views: how far the estimate fell short. */
  maxViewShortfall: number;
  /** Views whose actual count exceeds the prompt limit plus the safety reserve. */
  viewsOverReserve: number;
}

/** The tokenizer comparison of one run. */
export interface TokenizerReport {
  safetyReserve: number;
  encodings: EncodingCheck[];
}

/** Input of {@link checkTokenizers}. */
export interface TokenizerInput {
  /** Every fixture's conversation. */
  conversations: { fixture: string; messages: readonly BaseMessage[] }[];
  /** Views contextview built, with their limit and the tools charged. */
  views: { view: readonly BaseMessage[]; limit: number; tools: readonly unknown[] }[];
  safetyReserve?: number;
}

function distribution(values: readonly number[]): RatioDistribution {
  return { samples: values.length, min: quantile(values, 0), p5: quantile(values, 0.05), p50: quantile(values, 0.5), p95: quantile(values, 0.95), max: quantile(values, 1) };
}

/** The exact estimator of `@contextview/core` for one encoding, encoding every text (no length guard). */
export function tiktokenEstimator(encoding: EncodingName): Estimator {
  return createTiktokenEstimator(new Tiktoken(encoding === "o200k_base" ? o200k : cl100k), { maxExactChars: Number.POSITIVE_INFINITY });
}

/**
 * Compares the default estimator (digit- and symbol-aware, `estimateTextTokens`) with js-tiktoken's o200k_base
 * and cl100k_base: the ratio estimated/actual per message and per contextview view,
 * and by how many tokens a view's real count can exceed its estimate. A ratio
 * below 1 is an under-estimate; the safety reserve (2,048 by default) is what
 * covers it.
 */
export function checkTokenizers(input: TokenizerInput): TokenizerReport {
  const fallback = createEstimator();
  const safetyReserve = input.safetyReserve ?? DEFAULT_BUDGET.safetyReserve;
  const encodings = ENCODINGS.map((encoding): EncodingCheck => {
    const real = tiktokenEstimator(encoding);
    const all: number[] = [];
    const byFixture: Record<string, RatioDistribution> = {};
    for (const { fixture, messages } of input.conversations) {
      const ratios: number[] = [];
      for (const message of messages) {
        if (countImages(message.content) > 0) continue;
        ratios.push(fallback.estimateMessage(message) / real.estimateMessage(message));
      }
      byFixture[fixture] = distribution(ratios);
      all.push(...ratios);
    }
    const viewRatios: number[] = [];
    let maxViewShortfall = Number.NEGATIVE_INFINITY;
    let viewsOverReserve = 0;
    for (const { view, limit, tools } of input.views) {
      const estimated = fallback.estimateMessages(view) + fallback.estimateTools(tools);
      const actual = real.estimateMessages(view) + real.estimateTools(tools);
      viewRatios.push(estimated / actual);
      maxViewShortfall = Math.max(maxViewShortfall, actual - estimated);
      if (actual > limit + safetyReserve) viewsOverReserve++;
    }
    return { encoding, messages: distribution(all), byFixture, views: distribution(viewRatios), maxViewShortfall, viewsOverReserve };
  });
  return { safetyReserve, encodings };
}
