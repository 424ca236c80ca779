import type { RecalledBlock } from "./recall.js";

/** A message the recall block of a view shows: its index in the conversation (the summarized prefix included) and its id, if it has one. */
export interface RecalledMessage {
  index: number;
  id: string | undefined;
}

// Kept beside the view, never on it: the public view and its report stay as documented.
const recalledByView = new WeakMap<object, readonly RecalledMessage[]>();

/**
 * Note which messages the recall block of `view` shows, for {@link recalledIn}.
 * Internal to the library: neither the view nor its report carries them.
 *
 * @example
 * ```ts
 * noteRecalled(view, recalled);
 * ```
 */
export function noteRecalled(view: object, recalled: Pick<RecalledBlock, "indices" | "ids">): void {
  if (recalled.indices.length === 0) return;
  recalledByView.set(view, recalled.indices.map((index, k) => ({ index, id: recalled.ids[k] })));
}

/**
 * The messages the recall block of a view built by `buildContext` shows, by
 * conversation index (ascending) and id — never content; empty without a block.
 *
 * @example
 * ```ts
 * const ids = new Set(recalledIn(view).map((m) => m.id));
 * ```
 */
export function recalledIn(view: object): readonly RecalledMessage[] {
  return recalledByView.get(view) ?? [];
}
