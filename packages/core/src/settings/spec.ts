/**
 * Where a setting may be given: `request` settings are factory defaults that one
 * request may override (`config.configurable.context`, `overrides` of
 * `manager.build`); `factory` settings are set once, on the factory.
 */
export type SettingScope = "request" | "factory";

/** The option table a setting belongs to (one table per group in docs/configuration.md). */
export type SettingGroup = "budget" | "view" | "summarize" | "manager" | "estimator" | "compact";

/**
 * A default worked out per call from the prompt limit (the budget's `promptLimit`,
 * after calibration), rather than a fixed value.
 */
export interface DerivedDefault {
  readonly shareOfPromptLimit: number;
}

/**
 * One setting: what it accepts, its default and a one-line doc. Validation, error
 * messages, the LangGraph per-request schema and the docs tables are all read from it.
 *
 * @example
 * ```ts
 * const spec: SettingSpec = { group: "view", scope: "request", type: "integer", min: 50, default: 2000, doc: "largest tool result kept whole" };
 * ```
 */
export interface SettingSpec {
  readonly group: SettingGroup;
  readonly scope: SettingScope;
  /** `integer` means a safe integer; `number` a finite number. */
  readonly type: "integer" | "number" | "boolean";
  readonly min?: number;
  readonly max?: number;
  /** True when `min` itself is refused. */
  readonly exclusiveMin?: boolean;
  /** True when `max` itself is refused. */
  readonly exclusiveMax?: boolean;
  /** Why `max` is where it is, said in the error message. */
  readonly maxReason?: string;
  readonly default: number | boolean | DerivedDefault;
  /** When the default differs from `default` (said in the docs after it). */
  readonly defaultNote?: string;
  /** The environment variable that sets it (budget fields). */
  readonly env?: string;
  /**
   * True for a request setting that LangGraph's per-request schema
   * (`config.configurable.context`) does not accept; `overrides` of `manager.build` do.
   */
  readonly notInRequestConfig?: boolean;
  /** One line for the docs table (markdown). */
  readonly doc: string;
}

function frozen<T extends Record<string, SettingSpec>>(spec: T): T {
  for (const entry of Object.values(spec)) {
    Object.freeze(entry);
    if (typeof entry.default === "object") Object.freeze(entry.default);
  }
  return Object.freeze(spec);
}

/**
 * Every numeric and boolean setting of the view, the budget, the context manager, the
 * default estimator and `compactToolResult`: the one place their bounds and defaults
 * are written. Order is the order of the docs tables and of LangGraph's per-request
 * keys. Frozen to the leaves: validation reads it on every call.
 *
 * @example
 * ```ts
 * SETTINGS_SPEC.maxToolResultTokens.min; // 50
 * SETTINGS_SPEC.keepMinTokens.default; // { shareOfPromptLimit: 0.15 }
 * ```
 */
export const SETTINGS_SPEC = frozen({
  contextWindow: { group: "budget", scope: "request", type: "integer", min: 1, default: 32768, env: "CONTEXT_WINDOW_TOKENS", doc: "the smallest context window across the models you call" },
  promptBudget: { group: "budget", scope: "request", type: "integer", min: 1, default: 16000, env: "PROMPT_BUDGET_TOKENS", doc: "target for the whole prompt, tools and instructions included" },
  responseReserve: { group: "budget", scope: "request", type: "integer", min: 0, default: 4096, defaultNote: "at most half of `contextWindow`, and the profile's `maxOutputTokens` when smaller", env: "RESPONSE_RESERVE_TOKENS", doc: "room for the answer (its maximum output tokens)" },
  safetyReserve: { group: "budget", scope: "request", type: "integer", min: 0, default: 2048, defaultNote: "at most an eighth of `contextWindow`: 375 for 3000", doc: "room for estimation error" },
  memoryBudget: { group: "budget", scope: "request", type: "integer", min: 0, default: 1000, doc: "separate budget for saved memories" },

  summarize: { group: "summarize", scope: "request", type: "boolean", default: true, doc: "per-request switch: `false` drops older turns instead of summarizing them" },
  triggerRatio: {
    group: "summarize", scope: "request", type: "number", min: 0, max: 1, exclusiveMin: true, exclusiveMax: true, default: 0.75,
    doc: "share of the context window at which summarizing starts (see [summarizing.md](summarizing.md))",
  },
  // Shares of the limit rather than counts: the kept tail must leave room for the turns
  // to come, or every call would summarize again.
  keepMinTokens: { group: "summarize", scope: "request", type: "integer", min: 0, default: { shareOfPromptLimit: 0.15 }, doc: "newest tokens kept verbatim after a summary" },
  keepMinText: { group: "summarize", scope: "request", type: "integer", min: 0, default: 4, doc: "…and at least this many text messages" },
  keepMaxTokens: {
    group: "summarize", scope: "request", type: "integer", min: 0, default: { shareOfPromptLimit: 0.4 },
    doc: "stop gathering there, at the previous safe cut; the rest of the limit is room for the turns to come, so a summary is not needed again at once",
  },

  dropStep: {
    group: "view", scope: "request", type: "number", min: 0, max: 0.9, default: 0.25,
    doc:
      "how far the head of the view may move at once when older turns must go: the kept turns fill at least `1 − 3 × dropStep` of their room, " +
      "the oldest one a stable anchor, and so do the turns kept with their results cleared before them " +
      "(0 = exactly what is needed; see [concepts](concepts.md#why-the-head-moves-in-steps))",
  },
  maxOlderMessageTokens: { group: "view", scope: "request", type: "integer", min: 0, default: 1000, doc: "longest text an older message keeps before it becomes an excerpt" },
  maxToolCallProseTokens: { group: "view", scope: "request", type: "integer", min: 0, default: 200, doc: "longest prose of an older AI message that also calls tools" },
  excerptBudget: {
    group: "view", scope: "request", type: "integer", min: 0, default: 600,
    doc:
      "most tokens for excerpts of dropped turns when no summary is given and recall takes no reserve " +
      "(with one, the recalled block takes this room too; the older turns keep what the excerpts leave of it), " +
      "and for a long current turn's excerpt of its oldest exchanges (with the cache steps, up to 30% of the turn's room when that is more) (0 = off)",
  },
  keepRecentToolResults: {
    group: "view", scope: "request", type: "integer", min: 0, default: 3,
    defaultNote: "every result while a context manager summarizes: older results wait for their summary, and are cleared only when none comes; see [concepts](concepts.md#why-the-head-moves-in-steps)",
    doc: "newest tool results micro-compaction keeps; older ones are cleared when over budget",
  },
  maxToolResultTokens: { group: "view", scope: "request", type: "integer", min: 50, default: 2000, doc: "largest tool result kept whole when over budget" },
  // LangGraph's per-request schema never took it: there the model's profile decides it per call.
  imageInputs: {
    group: "view", scope: "request", notInRequestConfig: true, type: "boolean", default: true, defaultNote: "false when the model's profile says `imageInputs: false`",
    doc: "`false`: every image becomes a placeholder, the current turn's too (older turns always get placeholders, pinned copies unless `pinnedImages`)",
  },
  clearStep: {
    group: "view", scope: "request", type: "integer", min: 1, default: 32,
    doc: "older tool results are cleared in steps of about this many: past `keepRecentToolResults` they stay whole up to a stable anchor result, at most `4 × (clearStep − 1)` extra (1 = clear each as it passes `keepRecentToolResults`)",
  },
  cacheBreakpoints: { group: "view", scope: "request", type: "boolean", default: false, doc: "mark Anthropic prompt-cache breakpoints on the view (below)" },
  pinOpeningRequest: { group: "view", scope: "request", type: "boolean", default: true, doc: "keep the first user message in every view, labelled, after the system message (see [concepts.md](concepts.md#pinned-context))" },
  maxOpeningRequestTokens: { group: "view", scope: "request", type: "integer", min: 50, default: 1500, doc: "longest opening request kept verbatim; beyond it an excerpt of its beginning and end" },
  pinnedBudget: { group: "view", scope: "request", type: "integer", min: 0, default: 3000, doc: "tokens shared by the messages pinned with `pinMessage` or `pin`; the oldest are excerpted, then left out (0 = off)" },
  // Set once, on the factory: a request (whose `configurable` a client may send) must not choose who may pin.
  trustPinField: {
    group: "view", scope: "factory", type: "boolean", default: true,
    doc: "`false`: the pin field (`additional_kwargs.contextview_pinned`, what `pinMessage` writes) pins nothing, and only the factory's `pin` predicate pins — for graphs that take messages from clients you do not trust, who can set that field (see [concepts](concepts.md#who-can-pin))",
  },
  recallBudget: {
    group: "view", scope: "request", type: "integer", min: 0, default: 4000,
    doc: "tokens older turns leave, when some must go, to the messages outside the view that best match the request, brought back in one labelled block before the current turn (at most half the history room and the excerpts' room, `excerptBudget`, which it replaces), when the 3 turns before the request called no tool; on a turn's first call the room its matches leave (all of it when none match, as for “ok”) goes to the newest messages left out; after tool turns, no reserve, and a brief of at most 250 tokens (a quarter of a smaller budget), from the room left, on the turn's first call, with what the view lacks (see [concepts](concepts.md#relevance-what-the-request-needs)); 0 = off",
  },
  evidenceShare: {
    group: "view", scope: "request", type: "number", min: 0, max: 1, default: 0.1,
    doc: "largest share of the prompt limit the durable evidence in the history slot takes, alone or beside a summary: past it the oldest excerpts of its largest bucket leave first, counted in its `omitted` and in `report.history.evidenceOmitted`, and their room goes to the older turns and the recalled block (1 = all that fits; see [concepts](concepts.md#relevance-what-the-request-needs))",
  },
  pinnedImages: {
    group: "view", scope: "request", type: "boolean", default: false,
    doc: "`true`: pinned copies (the opening request, pins) keep their images; by default each becomes a placeholder, counted in `imagesReplaced`",
  },

  summarizerInputTokens: { group: "manager", scope: "factory", type: "integer", min: 1, default: 6000, doc: "largest transcript chunk per summarizer call" },
  // Node fires a longer timer after about 1 ms: refuse it rather than time every summary out.
  summarizerTimeoutMs: {
    group: "manager", scope: "factory", type: "integer", min: 1, max: 2_147_483_647, maxReason: "Node's longest timer", default: 60000,
    doc: "a slower summarizer call fails",
  },
  maxSummarizerFailures: { group: "manager", scope: "factory", type: "integer", min: 1, default: 3, doc: "consecutive summarizer failures before a cool-down" },
  summarizerCooldownMs: { group: "manager", scope: "factory", type: "integer", min: 1, default: 300000, doc: "how long summarizing is skipped after that" },
  calibrate: { group: "manager", scope: "factory", type: "boolean", default: true, doc: "learn actual/estimated tokens from `usage_metadata.input_tokens` (ratio bounded to 0.5–3)" },

  messageOverhead: { group: "estimator", scope: "factory", type: "integer", min: 0, default: 4, doc: "tokens per message for role and framing" },
  imageTokens: { group: "estimator", scope: "factory", type: "integer", min: 0, default: 1024, doc: "tokens per image, whatever its encoded size" },
  toolOverhead: { group: "estimator", scope: "factory", type: "integer", min: 0, default: 8, doc: "tokens per tool call and per tool schema" },
  scale: { group: "estimator", scope: "factory", type: "number", min: 0, exclusiveMin: true, default: 1, doc: "multiplies every estimate" },

  maxHeadings: { group: "compact", scope: "factory", type: "integer", min: 1, default: 24, doc: "longest heading index" },
  maxDepth: { group: "compact", scope: "factory", type: "integer", min: 1, max: 1000, default: 200, doc: "deepest nesting projected" },
  maxNodes: { group: "compact", scope: "factory", type: "integer", min: 1, default: 20_000_000, doc: "most values an artifact may expand to" },
} as const satisfies Record<string, SettingSpec>);

/** The name of a setting in {@link SETTINGS_SPEC}. */
export type SettingName = keyof typeof SETTINGS_SPEC;

/** The names of the settings of one group, in table order. */
export type SettingsOf<G extends SettingGroup> = {
  [K in SettingName]: (typeof SETTINGS_SPEC)[K]["group"] extends G ? K : never;
}[SettingName];

/** The value a setting takes. */
export type SettingValue<K extends SettingName> = (typeof SETTINGS_SPEC)[K]["type"] extends "boolean" ? boolean : number;
