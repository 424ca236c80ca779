/**
 * The first recall call a note prints (``call `recall` with {…}``), parsed: what an
 * agent reading the note would send. Undefined when the text names none.
 *
 * @example
 * ```ts
 * printedRecallCall('[… To read them, call `recall` with {"action":"read","message":"c1"}]'); // { action: "read", message: "c1" }
 * ```
 */
export function printedRecallCall(text: string): Record<string, unknown> | undefined {
  const marker = "call `recall` with ";
  const at = text.indexOf(marker);
  if (at < 0) return undefined;
  let depth = 0;
  for (let i = at + marker.length; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return JSON.parse(text.slice(at + marker.length, i + 1)) as Record<string, unknown>;
  }
  return undefined;
}

/** What a recall `read` answer shows: the character range of the message and those characters, taken from between the fences. */
export interface ReadAnswerPart {
  from: number;
  to: number;
  of: number;
  text: string;
}

/**
 * The characters a recall `read` answer shows (its range line, then the text between
 * two fences of backticks), or undefined when the answer is not a read.
 *
 * @example
 * ```ts
 * readAnswerPart("…characters 0-2 of 9, between the fences:\n```\nhi\n```"); // { from: 0, to: 2, of: 9, text: "hi" }
 * ```
 */
export function readAnswerPart(answer: string): ReadAnswerPart | undefined {
  const range = /characters (\d+)-(\d+) of (\d+), between the fences:\n(`{3,})\n/.exec(answer);
  if (range === null) return undefined;
  const start = range.index + range[0].length;
  const close = answer.indexOf(`\n${range[4]}`, start + Number(range[2]) - Number(range[1]));
  if (close < 0) return undefined;
  return { from: Number(range[1]), to: Number(range[2]), of: Number(range[3]), text: answer.slice(start, close) };
}
