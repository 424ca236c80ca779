import { ContextOverflowError } from "@langchain/core/errors";

/**
 * Every `code` a contextview error can carry. Stable: match on it, not on messages.
 *
 * - `INVALID_OPTION`: an option or budget value is out of range.
 * - `INVALID_MESSAGES`: the messages given are not a list of chat messages.
 * - `CONTEXT_BUDGET_EXCEEDED`: the mandatory part of the view does not fit the prompt limit.
 * - `COMPACTION_LIMIT`: a tool result's required structure cannot fit its limit.
 * - `INVALID_TOOL_RESULT`: a tool result cannot be compacted safely (cyclic, too deep…).
 * - `PREFIX_CHANGED`: the summarized checkpoint prefix is not the one seen before.
 * - `STORE_ERROR`: a context store failed.
 */
export type ContextViewErrorCode =
  | "INVALID_OPTION"
  | "INVALID_MESSAGES"
  | "CONTEXT_BUDGET_EXCEEDED"
  | "COMPACTION_LIMIT"
  | "INVALID_TOOL_RESULT"
  | "PREFIX_CHANGED"
  | "STORE_ERROR";

/** Registered globally so that duplicate copies of this package agree. */
const MARK = Symbol.for("contextview.error");
/** Carried by every error of every contextview package (core, stores, langgraph, inspect). */
const BASE_MARK = Symbol.for("contextview.error.base");

/**
 * Mark `error` as one of a class, readable by `isInstance` in any copy of the
 * package: a `Symbol.for` key is shared across copies, a class identity is not.
 */
function markAs(error: object, mark: symbol): void {
  Object.defineProperty(error, mark, { value: true, enumerable: false });
}

/** How many `cause` links a guard follows: langchain wraps once per middleware layer. */
const CAUSE_DEPTH = 8;

/**
 * `value` or the first error of its `cause` chain that carries `mark`. createAgent
 * rethrows a middleware's error as langchain's `MiddlewareError` (name and message
 * copied, the error itself on `cause`), so a guard that read `value` alone would
 * miss every contextview error of the middleware.
 */
function markedIn(value: unknown, mark: symbol): (object & { code?: unknown }) | undefined {
  let current = value;
  for (let depth = 0; depth <= CAUSE_DEPTH && typeof current === "object" && current !== null; depth++) {
    if ((current as Record<symbol, unknown>)[mark] === true) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function hasMarkOf(value: unknown, mark: symbol): boolean {
  return markedIn(value, mark) !== undefined;
}

function mark(error: object): void {
  markAs(error, BASE_MARK);
  markAs(error, MARK);
}

function hasMark(value: unknown): value is { code: ContextViewErrorCode } {
  return hasMarkOf(value, MARK);
}

/**
 * The one base of the error classes of every contextview package: a stable `name`,
 * a literal-union `code`, and a static `isInstance` that works across duplicate
 * copies of a package. Each package's class (core's {@link ContextViewError}, the
 * LangGraph package's `ContextIntegrationError`, the inspector's `InspectError`)
 * extends it with its own codes and its own `isInstance`.
 *
 * @example
 * ```ts
 * class MyStoreError extends ContextViewBaseError<"LOCKED"> {
 *   override readonly name = "MyStoreError";
 *   constructor(message: string) {
 *     super("LOCKED", message, undefined, Symbol.for("my-store.error"));
 *   }
 * }
 * ContextViewBaseError.isInstance(new MyStoreError("busy")); // true
 * ```
 */
export class ContextViewBaseError<Code extends string = string> extends Error {
  override readonly name: string = "ContextViewBaseError";
  /** What went wrong, as a stable literal. */
  readonly code: Code;

  /**
   * @param classMark - `Symbol.for(...)` of the subclass, read by its `isInstance`.
   */
  constructor(code: Code, message: string, options?: { cause?: unknown }, classMark?: symbol) {
    super(message, options);
    this.code = code;
    markAs(this, BASE_MARK);
    if (classMark !== undefined) markAs(this, classMark);
  }

  /**
   * True for an error of any contextview package, whichever copy threw it, and for
   * an error whose `cause` chain holds one (langchain's `MiddlewareError` on the
   * createAgent path: read `code` and the figures from its `cause`).
   */
  static isInstance(value: unknown): value is ContextViewBaseError | ContextBudgetError {
    return hasMarkOf(value, BASE_MARK);
  }

  /**
   * True when `value` carries `classMark` (see the constructor): the body of each
   * subclass's `isInstance`.
   *
   * @example
   * ```ts
   * ContextViewBaseError.hasClassMark(error, Symbol.for("my-store.error"));
   * ```
   */
  static hasClassMark(value: unknown, classMark: symbol): boolean {
    return hasMarkOf(value, classMark);
  }
}

/**
 * Base class of every error contextview throws.
 *
 * `ContextViewError.isInstance(err)` also recognises errors from another copy of
 * the package and {@link ContextBudgetError}, which extends LangChain's
 * `ContextOverflowError` instead of this class.
 *
 * @example
 * ```ts
 * try {
 *   buildContext({ messages });
 * } catch (err) {
 *   if (ContextViewError.isInstance(err) && err.code === "INVALID_MESSAGES") {
 *     console.error(err.message);
 *   }
 * }
 * ```
 */
export class ContextViewError extends ContextViewBaseError<ContextViewErrorCode> {
  override readonly name: string = "ContextViewError";
  /** Figures or names that explain the error; never message content. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ContextViewErrorCode, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(code, message, options, MARK);
    this.details = details;
  }

  /** True for any contextview error, whichever copy of the package threw it. */
  static override isInstance(value: unknown): value is ContextViewError | ContextBudgetError {
    return hasMark(value);
  }
}

/** The figures carried by a {@link ContextBudgetError}, in estimated tokens. */
export interface BudgetShortfall {
  /** The prompt limit the view had to fit. */
  readonly limit: number;
  /** Estimated tokens of the part that cannot be left out. */
  readonly required: number;
  /** Estimated tokens per mandatory part. */
  readonly parts: Readonly<Record<string, number>>;
}

/**
 * The mandatory part of a view (system prompt, memories, tool schemas, the current
 * request with its tool arguments) does not fit the prompt limit.
 *
 * It extends LangChain's `ContextOverflowError` (so `ContextOverflowError.isInstance`
 * and existing handlers catch it) and is recognised by `ContextViewError.isInstance`,
 * with `code` `"CONTEXT_BUDGET_EXCEEDED"`.
 *
 * @example
 * ```ts
 * import { ContextOverflowError } from "@langchain/core/errors";
 * try {
 *   buildContext({ messages, budget: { promptBudget: 100 } });
 * } catch (err) {
 *   if (ContextBudgetError.isBudgetError(err)) console.log(err.required, err.limit);
 *   ContextOverflowError.isInstance(err); // true
 * }
 * ```
 */
export class ContextBudgetError extends ContextOverflowError {
  readonly code = "CONTEXT_BUDGET_EXCEEDED" as const;
  readonly limit: number;
  readonly required: number;
  readonly parts: Readonly<Record<string, number>>;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(shortfall: BudgetShortfall) {
    const parts = Object.entries(shortfall.parts)
      .map(([name, tokens]) => `${name} ${tokens}`)
      .join(", ");
    super(
      `The mandatory part of the view needs ${shortfall.required} estimated tokens but the prompt limit is ${shortfall.limit} (${parts}). ` +
        "Raise `promptBudget`/`contextWindow`, or shorten the system prompt, tools or current request.",
    );
    Object.defineProperty(this, "name", { value: "ContextBudgetError", enumerable: false, configurable: true, writable: true });
    this.limit = shortfall.limit;
    this.required = shortfall.required;
    this.parts = { ...shortfall.parts };
    this.details = { limit: this.limit, required: this.required, parts: this.parts };
    mark(this);
  }

  /**
   * True for a budget error from any copy of contextview, and for an error whose
   * `cause` chain holds one (langchain's `MiddlewareError` on the createAgent path,
   * where `ContextOverflowError.isInstance` is false: the figures are on its `cause`).
   */
  static isBudgetError(value: unknown): value is ContextBudgetError {
    return markedIn(value, MARK)?.code === "CONTEXT_BUDGET_EXCEEDED";
  }

  /**
   * The same as {@link ContextBudgetError.isBudgetError}. Without it this would be
   * LangChain's `ContextOverflowError.isInstance`, true for a provider's overflow
   * and false on the createAgent path.
   *
   * @example
   * ```ts
   * ContextBudgetError.isInstance(new ContextOverflowError("prompt is too long")); // false
   * ```
   */
  static override isInstance<T extends abstract new (...args: never[]) => unknown>(this: T, value: unknown): value is InstanceType<T> {
    return ContextBudgetError.isBudgetError(value);
  }
}

/** Shorthand for an `INVALID_OPTION` error naming the field and what was expected. */
export function invalidOption(field: string, expected: string, got: unknown): ContextViewError {
  return new ContextViewError("INVALID_OPTION", `Expected \`${field}\` to be ${expected}, got ${describeValue(got)}`, { field });
}

/**
 * Throws `INVALID_OPTION` for an option given by its 0.x name (`renamed` maps each to
 * its name since 1.0): never read, so never silently ignored either.
 *
 * @example
 * ```ts
 * refuseRenamed({ keepRecent: 2 }, { keepRecent: "keepRecentToolResults" }); // throws: `keepRecent` was renamed `keepRecentToolResults` in 1.0 …
 * ```
 */
export function refuseRenamed(options: object, renamed: Readonly<Record<string, string>>): void {
  for (const [former, current] of Object.entries(renamed)) {
    if (!Object.hasOwn(options, former) || (options as Record<string, unknown>)[former] === undefined) continue;
    const message = `\`${former}\` was renamed \`${current}\` in 1.0 (docs/migrating.md); the former name is not read`;
    throw new ContextViewError("INVALID_OPTION", message, { field: former });
  }
}

/** A short, content-free description of a value for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  switch (typeof value) {
    case "string":
      return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
    case "number":
    case "boolean":
    case "bigint":
      return String(value);
    case "undefined":
      return "undefined";
    case "function":
      return "a function";
    case "symbol":
      return "a symbol";
    default: {
      const ctor = (value as object).constructor?.name;
      return ctor && ctor !== "Object" ? `a ${ctor}` : "an object";
    }
  }
}
