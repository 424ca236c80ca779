import { ContextOverflowError } from "@langchain/core/errors";

/** Finish reasons with which providers report an over-long prompt in a response. */
const OVERFLOW_FINISH_REASONS = new Set(["model_context_window_exceeded", "context_window_exceeded", "context_length_exceeded"]);

const OVERFLOW_TEXT =
  /context[ _-]?(length|window)[ _-]?exceeded|maximum context length|context window (is )?(full|exceeded)|prompt is too long|input is too long|too many (input )?tokens|exceeds? the (model'?s )?(maximum )?context/i;

/**
 * The default overflow detector: LangChain's `ContextOverflowError` (anywhere in
 * the `cause` chain), a provider error whose code or message says the prompt is too
 * long, or a response whose finish reason says so.
 *
 * @example
 * ```ts
 * isContextOverflow(new ContextOverflowError()); // true
 * isContextOverflow({ code: "context_length_exceeded" }); // true
 * isContextOverflow(new AIMessage({ content: "", response_metadata: { finish_reason: "model_context_window_exceeded" } })); // true
 * ```
 */
export function isContextOverflow(value: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = value;
  while (typeof current === "object" && current !== null && !seen.has(current)) {
    seen.add(current);
    if (ContextOverflowError.isInstance(current)) return true;
    const record = current as Record<string, unknown>;
    const code = record["code"] ?? (record["error"] as Record<string, unknown> | undefined)?.["code"];
    if (typeof code === "string" && OVERFLOW_FINISH_REASONS.has(code)) return true;
    if (current instanceof Error && OVERFLOW_TEXT.test(current.message)) return true;
    const metadata = record["response_metadata"] as Record<string, unknown> | undefined;
    const finish = metadata?.["finish_reason"] ?? metadata?.["stop_reason"];
    if (typeof finish === "string" && OVERFLOW_FINISH_REASONS.has(finish)) return true;
    current = record["cause"];
  }
  return false;
}
