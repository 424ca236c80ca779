/** Longest message id a recalled line shows whole. */
export const WHOLE_ID = 16;
/** Characters a longer id keeps, its last, after "…". */
export const ID_TAIL = 8;

/**
 * A message id as a recalled line shows it: whole up to {@link WHOLE_ID} characters,
 * else "…" and its last {@link ID_TAIL} (a UUID, as LangGraph gives every message
 * without an id, costs about 30 tokens whole, more than many a chat turn; its last
 * characters tell it from the others as well). The line's index names the message
 * exactly; the recall tool reads a message by either (see {@link matchesLineId}).
 *
 * @example
 * ```ts
 * lineId("D3:12"); // "D3:12"
 * lineId("5f3c2a9e-1b7d-4c3e-9a2f-0e8d7c6b5a41"); // "…7c6b5a41"
 * ```
 */
export function lineId(id: string): string {
  return id.length <= WHOLE_ID ? id : `…${id.slice(-ID_TAIL)}`;
}

/**
 * True when `reference` is the shortened form {@link lineId} gives `id` ("…" and
 * its last {@link ID_TAIL} characters); a whole id is compared by the caller.
 *
 * @example
 * ```ts
 * matchesLineId("5f3c2a9e-1b7d-4c3e-9a2f-0e8d7c6b5a41", "…7c6b5a41"); // true
 * ```
 */
export function matchesLineId(id: string, reference: string): boolean {
  return id.length > WHOLE_ID && reference === lineId(id);
}
