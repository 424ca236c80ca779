import type { BaseMessage } from "@langchain/core/messages";
import { ContextViewError, describeValue, invalidOption } from "../errors.js";
import type { Estimator } from "../estimate.js";
import type { MessageDate } from "./types.js";

/** Longest date shown from a string, in characters. */
const MAX_DATE_CHARS = 40;
/**
 * Numbers below this are epoch seconds, not milliseconds: as milliseconds they would be
 * before March 1973, as seconds they reach the year 5138.
 */
export const EPOCH_SECONDS_BELOW = 1e11;

/**
 * The date a recalled line shows for message `index`, read with the application's
 * {@link MessageDate}: a string as it is (whitespace collapsed, at most 40
 * characters), a `Date` or an epoch time as UTC ISO 8601 to the minute (a number
 * below {@link EPOCH_SECONDS_BELOW} is seconds, any other milliseconds),
 * `undefined` (or an empty string) as no date. Throws `INVALID_OPTION` naming
 * `messageDate` for any other value, an invalid `Date` or a non-finite number.
 *
 * @example
 * ```ts
 * recallDate((m) => m.additional_kwargs.sent_at as string, message, 12); // "8 May 2023, 1:56 pm"
 * recallDate(() => Date.UTC(2023, 4, 8, 13, 56), message, 12); // "2023-05-08T13:56Z"
 * recallDate(() => 1683554160, message, 12); // "2023-05-08T13:56Z" (epoch seconds)
 * ```
 */
export function recallDate(messageDate: MessageDate, message: BaseMessage, index: number): string | undefined {
  return dateText(messageDate(message, index), index);
}

/**
 * The text a recalled line shows for a value `messageDate` returned for message
 * `index` (see {@link recallDate}): what a view record keeps, so a rebuild shows the same.
 *
 * @example
 * ```ts
 * dateText(1683554160, 12); // "2023-05-08T13:56Z"
 * ```
 */
export function dateText(value: unknown, index: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string") {
    const text = value.replace(/\s+/g, " ").trim();
    return text === "" ? undefined : text.slice(0, MAX_DATE_CHARS);
  }
  const ms = value instanceof Date ? value.getTime() : typeof value === "number" ? (Math.abs(value) < EPOCH_SECONDS_BELOW ? value * 1000 : value) : Number.NaN;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) {
    throw new ContextViewError("INVALID_OPTION", `Expected \`messageDate\` to return a string, a valid Date, epoch milliseconds or seconds, or undefined for message ${index}, got ${describeValue(value)}`, { field: "messageDate" });
  }
  return utcMinute(ms);
}

/**
 * A time as UTC ISO 8601 to the minute: how a recalled line shows a `Date`.
 *
 * @example
 * ```ts
 * utcMinute(Date.UTC(2023, 4, 8, 13, 56, 30)); // "2023-05-08T13:56Z"
 * ```
 */
export function utcMinute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16)}Z`;
}

/**
 * Checks a `messageDate` option: a function, or undefined.
 *
 * @example
 * ```ts
 * checkMessageDate(options.messageDate, "messageDate");
 * ```
 */
export function checkMessageDate(value: unknown, field: string): MessageDate | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "function") throw invalidOption(field, "a function (message, index) => string | Date | number | undefined", value);
  return value as MessageDate;
}

/** One recalled line: its message's index, date and text. */
interface DatedLine {
  index: number;
  date: string | undefined;
  text: string;
}

/**
 * The lines of a recalled block and their date headings: the lines, kept in conversation order, are
 * grouped in runs of one date, each run opened by a `[date …]` line (`[no date]` for
 * a run without one after a dated run), so a date is paid for once per run, not
 * once per line. {@link cost} gives the exact tokens a line's heading changes before
 * the line is taken, whatever order lines are taken in.
 *
 * @example
 * ```ts
 * const runs = new DateRuns(estimator);
 * const extra = runs.cost(12, "8 May 2023"); // the heading's tokens: a new run
 * runs.add(12, "8 May 2023", "[#12 · user] Did you get the tickets?");
 * runs.cost(13, "8 May 2023"); // 0: the same run
 * runs.render(); // ["[date 8 May 2023]", "[#12 · user] Did you get the tickets?"]
 * ```
 */
export class DateRuns {
  private readonly lines: DatedLine[] = [];
  private readonly headingTokens = new Map<string, number>();

  constructor(private readonly estimator: Estimator) {}

  /** Tokens the headings change by when the line of message `index` with `date` joins the block. */
  cost(index: number, date: string | undefined): number {
    const at = this.position(index);
    const previous = this.lines[at - 1];
    const next = this.lines[at];
    const line = { index, date, text: "" };
    let tokens = opens(line, previous) ? this.tokensOf(date) : 0;
    if (next !== undefined) tokens += ((opens(next, line) ? 1 : 0) - (opens(next, previous) ? 1 : 0)) * this.tokensOf(next.date);
    return tokens;
  }

  /** Takes the line `text` of message `index` into the block. */
  add(index: number, date: string | undefined, text: string): void {
    this.lines.splice(this.position(index), 0, { index, date, text });
  }

  /** The indices of the messages whose lines were taken, ascending. */
  indices(): number[] {
    return this.lines.map((line) => line.index);
  }

  /** The block's lines with their headings, in conversation order. */
  render(): string[] {
    const out: string[] = [];
    this.lines.forEach((line, k) => {
      if (opens(line, this.lines[k - 1])) out.push(heading(line.date));
      out.push(line.text);
    });
    return out;
  }

  private position(index: number): number {
    let lo = 0;
    let hi = this.lines.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.lines[mid] as DatedLine).index < index) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private tokensOf(date: string | undefined): number {
    const key = date ?? "";
    let tokens = this.headingTokens.get(key);
    if (tokens === undefined) this.headingTokens.set(key, (tokens = this.estimator.estimateText(heading(date)) + 1));
    return tokens;
  }
}

/** True when `line` opens a run: the first line with a date, or a date other than the line before's. */
function opens(line: DatedLine, previous: DatedLine | undefined): boolean {
  return previous === undefined ? line.date !== undefined : line.date !== previous.date;
}

function heading(date: string | undefined): string {
  return date === undefined ? "[no date]" : `[date ${date}]`;
}
