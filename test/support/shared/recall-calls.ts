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
