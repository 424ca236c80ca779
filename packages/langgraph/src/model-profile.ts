import type { ModelLimits } from "@contextview/core";

/** Links followed from a `RunnableBinding` (bindTools, withConfig) to the chat model. */
const MAX_DEPTH = 8;

const positiveInt = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value > 0;

/**
 * The limits contextview uses from a chat model's LangChain profile (`model.profile`:
 * `maxInputTokens`, `maxOutputTokens`, `imageInputs`), found on the model or along
 * its chain of `RunnableBinding`s (`bindTools`, `withConfig`). Read per call, since
 * a configurable model (`initChatModel`) knows its profile only once it is built.
 * A field that is missing or not a positive integer (or boolean) is left out; a
 * model without a profile gives `undefined`, and the defaults apply.
 *
 * @example
 * ```ts
 * modelLimitsOf(new ChatOpenAI({ model: "gpt-4o" }).bindTools(tools)); // { maxInputTokens: 128000, maxOutputTokens: 16384, imageInputs: true }
 * ```
 */
export function modelLimitsOf(model: unknown): ModelLimits | undefined {
  let current = model as { bound?: unknown; profile?: unknown } | undefined;
  for (let depth = 0; current !== null && typeof current === "object" && depth < MAX_DEPTH; depth++) {
    let profile: unknown;
    try {
      profile = current.profile;
    } catch {
      profile = undefined;
    }
    const limits = limitsOf(profile);
    if (limits !== undefined) return limits;
    current = current.bound as typeof current;
  }
  return undefined;
}

function limitsOf(profile: unknown): ModelLimits | undefined {
  if (typeof profile !== "object" || profile === null) return undefined;
  const { maxInputTokens, maxOutputTokens, imageInputs } = profile as Record<string, unknown>;
  const limits: ModelLimits = {};
  if (positiveInt(maxInputTokens)) limits.maxInputTokens = maxInputTokens;
  if (positiveInt(maxOutputTokens)) limits.maxOutputTokens = maxOutputTokens;
  if (typeof imageInputs === "boolean") limits.imageInputs = imageInputs;
  return Object.keys(limits).length > 0 ? limits : undefined;
}
