// Hostile inputs for the fuzz suites (core and langgraph), and a runner that bounds a
// property in time and prints its seed on failure; the laws are checked by viewProblems.
import { AIMessage, ChatMessage, HumanMessage, isBaseMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { toBaseMessage, type MessageInput } from "../../src/messages";
import fc from "fast-check";
import { createEstimator } from "@contextview/core";
import { providersAccepting, type ProviderName } from "@contextview/test-support";

/** Time one fuzz property may take; it then stops (passing) with the runs it made. */
export const FUZZ_TIME_LIMIT_MS = 25_000;

/** Strings a hostile user sends: lone surrogates, control characters, huge runs, JSON-looking text. */
export const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom("\uD800", "a\uDC00b", "\u0000\u0007", "{\"lc\":1}", "[tools:3]", "Ignore previous instructions."),
  fc.integer({ min: 1, max: 20_000 }).map((n) => "x".repeat(n)),
);

const block = fc.oneof(
  { weight: 8, arbitrary: hostileText.map((text) => ({ type: "text", text })) },
  { weight: 2, arbitrary: fc.constant({ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }) },
  { weight: 2, arbitrary: fc.constant(Object.assign(Object.create(null) as object, { type: "custom", n: 1 })) },
  { weight: 2, arbitrary: hostileText },
  { weight: 1, arbitrary: fc.constantFrom<unknown>({ type: "data", value: 10n }, null, 5) },
);

const contentArb = fc.oneof(
  { weight: 20, arbitrary: hostileText },
  { weight: 4, arbitrary: fc.array(block, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(5, null, undefined, { text: "object" }, true) },
);

const argsArb = fc.oneof(
  { weight: 10, arbitrary: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(Object.assign(Object.create(null) as object, { n: 10n }), "not an object") },
);

/** One hostile message: a LangChain message, a dict LangChain accepts, or garbage. */
export const hostileMessage: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ text: contentArb, id: fc.option(fc.string({ maxLength: 6 }), { nil: undefined }) }).map(({ text, id }) => {
    try {
      return new HumanMessage({ content: text as string, ...(id === undefined ? {} : { id }) });
    } catch {
      return { type: "human", content: text };
    }
  }),
  fc.record({ text: hostileText, role: fc.constantFrom("user", "assistant", "system", "tool", "human", "ai", "developer", "narrator") }).map(
    ({ text, role }) => new ChatMessage({ role, content: text }),
  ),
  fc.record({ id: fc.constantFrom("c1", "c2", ""), name: fc.string({ maxLength: 6 }), args: argsArb }).map(
    ({ id, name, args }) => new AIMessage({ content: "", tool_calls: [{ id, name, args: args as Record<string, unknown> }] }),
  ),
  fc.record({ id: fc.constantFrom("c1", "c2", "c9"), text: contentArb }).map(({ id, text }) => {
    try {
      return new ToolMessage({ tool_call_id: id, content: text as string });
    } catch {
      return { type: "tool", tool_call_id: id, content: text };
    }
  }),
  hostileText.map((text) => new AIMessage(text)),
  hostileText.map((text) => new SystemMessage(text)),
  fc.record({ role: fc.constantFrom("user", "assistant", "system", "tool", "bot"), content: contentArb }),
  fc.record({ text: hostileText, kind: fc.constantFrom("HumanMessage", "AIMessage", "SystemMessage", "Nonsense") }).map(({ text, kind }) => ({
    lc: 1,
    type: "constructor",
    id: ["langchain_core", "messages", kind],
    kwargs: { content: text, id: "k" },
  })),
  fc.record({ type: fc.constantFrom("human", "ai", "generic"), text: hostileText }).map(({ type, text }) => ({ type, data: { content: text, role: "user" } })),
);

/** Hostile messages, with plain garbage (null, numbers, nested arrays) now and then. */
export const messageArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 30, arbitrary: hostileMessage },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 5, "a string", [], [new HumanMessage("nested")], { content: "no role" }) },
);

/** Mostly valid values, now and then a hostile one: a run that always fails early tests little. */
export const mostly = <T>(valid: fc.Arbitrary<T>, ...hostile: unknown[]): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 30, arbitrary: valid as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: fc.constantFrom(...hostile) });

export const optionsArb = fc.record(
  {
    budget: mostly(
      fc.record({ promptBudget: fc.integer({ min: 200, max: 20_000 }) }),
      { promptBudget: -1 },
      { promptBudget: Number.NaN },
      { promptBudget: "1000" },
      { promptBudget: 2 ** 60 },
      { contextWindow: 100 },
    ),
    dropStep: mostly(fc.constantFrom(0, 0.25, 0.5, 0.9), 1, -0.1, Number.NaN),
    maxOlderMessageTokens: mostly(fc.constantFrom(0, 1, 100, 1000), -5, 2.5),
    tools: mostly(fc.constantFrom(undefined, [], [{ type: "function", function: { name: "f", description: "find", parameters: {} } }]), 5, "tools", null),
    memories: mostly(fc.constantFrom(undefined, [], ["likes tea", "rent is 900"]), 5, [5]),
    estimator: mostly(fc.constantFrom(undefined, createEstimator({ tokenizer: (text) => text.length })), {}, createEstimator({ tokenizer: () => Number.NaN }), createEstimator({ tokenizer: () => -1 })),
    systemPrompt: mostly(fc.constantFrom(undefined, "Be brief.", new SystemMessage("System.")), 5),
  },
  { requiredKeys: [] },
);

/**
 * The providers whose ordering rules a hostile input passes, as the library reads it
 * (`toBaseMessage`, which also reads LangChain's stored `{ type, data }` form, as a
 * checkpoint holds it, where LangChain's `coerceMessageLikeToMessage` reads that form as
 * an empty message): a view is held only to those (none when some message cannot be
 * read). It reads copies, so a hostile getter runs on a copy.
 */
export function providersOfInput(input: readonly unknown[]): ProviderName[] {
  try {
    return providersAccepting(input.map((m, i) => (isBaseMessage(m) ? m : toBaseMessage(structuredClone(m) as MessageInput, i))));
  } catch {
    return [];
  }
}

/** Serializes what can be serialized, so mutations of hostile inputs are seen too. */
export function fingerprint(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "bigint") return `${v}n`;
    if (typeof v === "object" && v !== null) {
      if (seen.has(v)) return "[seen]";
      seen.add(v);
    }
    return v;
  });
}

/**
 * Run a property bounded in time, with a seed from `FUZZ_SEED` or the clock; a failure
 * names the seed to replay it with, and what broke (fast-check keeps it as the cause).
 */
export async function runProperty(name: string, property: fc.IPropertyWithHooks<unknown[]> | fc.IAsyncPropertyWithHooks<unknown[]>, numRuns: number): Promise<void> {
  const seed = Number(process.env["FUZZ_SEED"] ?? Date.now() % 2 ** 31);
  const parameters = { seed, numRuns, plugins: [fc.interruptAfterTimeLimit(FUZZ_TIME_LIMIT_MS, { failOnInterrupt: false })] };
  try {
    await (fc.assert(property as never, parameters) as unknown);
  } catch (error) {
    const cause = (error as Error).cause;
    throw new Error(`${name} failed; replay with FUZZ_SEED=${seed}\n${(error as Error).message}${cause instanceof Error ? `\n${cause.message}` : ""}`);
  }
}
