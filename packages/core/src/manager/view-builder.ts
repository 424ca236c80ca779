import type { BaseMessage } from "@langchain/core/messages";
import type { ResolvedBudget } from "../budget.js";
import type { Estimator } from "../estimate.js";
import type { MessageInput } from "../messages.js";
import { summaryMessage } from "../summarize/summary-message.js";
import { buildResolvedView } from "../view/build-context.js";
import { DEFAULT_VIEW_OPTIONS } from "../view/options.js";
import { dateText } from "../view/recall-date.js";
import type { ContextView, MessageDate, PinPredicate, TurnSummary, ViewOptions } from "../view/types.js";
import type { ContextRequest, ContextSettings } from "./types.js";

/** Builds the views of one request, with or without a summary in front. */
export interface RequestViews {
  /**
   * The view of the messages from `offset` on (the leading system messages kept),
   * with the summary `text` (or only `evidence` without one) in the history slot.
   */
  build(offset: number, text: string | null, evidence: BaseMessage | null): ContextView;
  /** The indices (in the request's messages) the `pin` predicate chose for the last view built, ascending. */
  predicatePins(): number[];
  /**
   * What `messageDate` returned for every view of the request built so far (these views
   * and those made from them with `with`), by index in the request's messages, ascending
   * (as the text a line shows for it, `undefined` as null): the view shown may be built
   * before the last one.
   */
  messageDates(): [number, string | number | null][];
  /** The view options these views are built with (resolved once, frozen), as a view record keeps them. */
  readonly options: Readonly<Required<ViewOptions>>;
  /** The manager summarizes the turns these views leave out (see `ResolvedViewSettings.summarizes`), as a view record keeps it. */
  readonly summarizes: boolean;
  /** The same views with some settings changed. */
  with(changed: ContextSettings): RequestViews;
  /** The same views with the summary of the current turn's first exchanges (see `BuildContextInput.turnSummary`). */
  withTurnSummary(turnSummary: TurnSummary): RequestViews;
  /** The turn summary these views are given, if any. */
  readonly turnSummary: TurnSummary | undefined;
}

/**
 * The view builder of one request. A view record keeps the indices the `pin`
 * predicate chose and the dates `messageDate` gave, as functions cannot be recorded.
 *
 * @example
 * ```ts
 * const views = requestViews({ settings, options: viewOptions, messages, lead, budget, estimator, request, pin: options.pin });
 * const view = views.build(lead, null, evidence);
 * ```
 */
export function requestViews(inputs: {
  settings: ContextSettings;
  messages: readonly MessageInput[];
  lead: number;
  /** Resolved once per request (see `limitFor`). */
  budget: ResolvedBudget;
  estimator: Estimator;
  request: ContextRequest;
  pin: PinPredicate | undefined;
  messageDate?: MessageDate | undefined;
  turnSummary?: TurnSummary | undefined;
  /** The dates given so far, shared with the views made from these. */
  dates?: Map<number, string | number | null>;
  /** The view options, resolved once per request from the factory's (resolved at the factory) and the request's overrides (checked as it came in). */
  options: Readonly<Required<ViewOptions>>;
  /** The manager summarizes the turns its views leave out (see `ResolvedViewSettings.summarizes`). @default false */
  summarizes?: boolean;
}): RequestViews {
  const { settings, messages, lead, budget, estimator, request, pin, messageDate, turnSummary } = inputs;
  const dates = inputs.dates ?? new Map<number, string | number | null>();
  let chosen: number[] = [];
  // One frozen value every view of the request is built with: nothing deeper validates them again.
  const { options } = inputs;
  // The dates the views read, kept as the text each line shows (refused, like the view, when
  // it is no date): a Date kept as epoch milliseconds before 1973 would read as seconds.
  const datedBy: MessageDate | undefined =
    messageDate === undefined
      ? undefined
      : (message, index) => {
          const date = messageDate(message, index);
          dates.set(index, dateText(date, index) ?? null);
          return date;
        };
  const summarizes = inputs.summarizes === true;
  const resolved = { budget, estimator, options, messageDate: datedBy, summarizes };
  return {
    options,
    summarizes,
    with: (changed) => {
      const changedOptions = Object.freeze({ ...options, ...viewSettingsIn(changed) });
      return requestViews({ ...inputs, dates, settings: { ...settings, ...changed }, options: changedOptions });
    },
    withTurnSummary: (summary) => requestViews({ ...inputs, dates, turnSummary: summary }),
    turnSummary,
    build(offset, text, evidence) {
      const picked: number[] = [];
      chosen = picked;
      return buildResolvedView({
        messages: offset > lead ? [...messages.slice(0, lead), ...messages.slice(offset)] : messages,
        // The summarized prefix still holds the opening request and any pins.
        ...(offset > lead ? { priorMessages: messages.slice(lead, offset) } : {}),
        ...(pin === undefined
          ? {}
          : {
              pin: (message: BaseMessage, index: number) => {
                const pinned = pin(message, index);
                if (pinned) picked.push(index);
                return pinned;
              },
            }),
        ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
        ...(request.tools === undefined ? {} : { tools: request.tools }),
        ...(request.memories === undefined ? {} : { memories: request.memories }),
        historyMessage: text === null ? evidence : summaryMessage(text, offset, evidence),
        ...(turnSummary === undefined ? {} : { turnSummary }),
      }, resolved);
    },
    predicatePins: () => [...new Set(chosen)].sort((a, b) => a - b),
    messageDates: () => [...dates].sort((a, b) => a[0] - b[0]),
  };
}

/** The view settings among `changed`, as given: values the manager checked or set itself. */
export function viewSettingsIn(changed: ContextSettings): Partial<Required<ViewOptions>> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changed)) if (value !== undefined && Object.hasOwn(DEFAULT_VIEW_OPTIONS, key)) out[key] = value;
  return out as Partial<Required<ViewOptions>>;
}
