import type { BaseMessage } from "@langchain/core/messages";
import { ContextViewError, describeValue, invalidOption } from "../errors.js";
import type { MessageDate } from "./types.js";

/** Longest date shown from a string, in characters. */
const MAX_DATE_CHARS = 40;

/**
 * The date a recalled line shows for message `index`, read with the application's
 * {@link MessageDate}: a string as it is (whitespace collapsed, at most 40
 * characters), a `Date` or epoch milliseconds as UTC ISO 8601 to the minute,
 * `undefined` (or an empty string) as no date. Throws `INVALID_OPTION` naming
 * `messageDate` for any other value, an invalid `Date` or a non-finite number.
 *
 * @example
 * ```ts
 * recallDate((m) => m.additional_kwargs.sent_at as string, message, 12); // "8 May 2023, 1:56 pm"
 * recallDate(() => Date.UTC(2023, 4, 8, 13, 56), message, 12); // "2023-05-08T13:56Z"
 * ```
 */
export function recallDate(messageDate: MessageDate, message: BaseMessage, index: number): string | undefined {
  const value: unknown = messageDate(message, index);
  if (value === undefined) return undefined;
  if (typeof value === "string") {
    const text = value.replace(/\s+/g, " ").trim();
    return text === "" ? undefined : text.slice(0, MAX_DATE_CHARS);
  }
  const ms = value instanceof Date ? value.getTime() : typeof value === "number" ? value : Number.NaN;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) {
    throw new ContextViewError("INVALID_OPTION", `Expected \`messageDate\` to return a string, a valid Date, epoch milliseconds or undefined for message ${index}, got ${describeValue(value)}`, { field: "messageDate" });
  }
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
