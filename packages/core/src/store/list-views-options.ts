import { invalidOption } from "../errors.js";
import type { ListViewsOptions } from "../record/types.js";

/**
 * The checked `limit` of `listViews` options (undefined: every record kept).
 * Throws `INVALID_OPTION` naming `limit`.
 *
 * @example
 * ```ts
 * checkListViewsOptions({ limit: 20 }); // 20
 * ```
 */
export function checkListViewsOptions(options: ListViewsOptions | undefined): number | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== "object" || options === null) throw invalidOption("options", "an object { limit? }", options);
  const limit = options.limit;
  if (limit === undefined) return undefined;
  if (!Number.isSafeInteger(limit) || limit < 0) throw invalidOption("limit", "a non-negative integer", limit);
  return limit;
}
