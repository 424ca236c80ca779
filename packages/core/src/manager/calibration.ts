import type { CompactionState } from "../store/contracts.js";

/** Bounds of the learned actual/estimated token ratio. */
export const CALIBRATION_BOUNDS = Object.freeze({ min: 0.5, max: 3 });
/** Past this many samples, new observations weigh 1/20 each (a moving average). */
const MAX_SAMPLES = 20;

/**
 * Fold one observation of `actual` provider input tokens against our `estimated`
 * tokens into the conversation's calibration. Observations outside the bounds are
 * clamped, so one odd response cannot run the estimate away.
 *
 * @example
 * ```ts
 * nextCalibration(undefined, 1000, 1300); // { ratio: 1.3, samples: 1 }
 * ```
 */
export function nextCalibration(previous: CompactionState["calibration"], estimated: number, actual: number): NonNullable<CompactionState["calibration"]> {
  const observed = clamp(actual / estimated);
  if (!previous) return { ratio: observed, samples: 1 };
  const samples = Math.min(previous.samples + 1, MAX_SAMPLES);
  return { ratio: clamp(previous.ratio + (observed - previous.ratio) / samples), samples };
}

function clamp(ratio: number): number {
  if (!Number.isFinite(ratio)) return 1;
  return Math.min(CALIBRATION_BOUNDS.max, Math.max(CALIBRATION_BOUNDS.min, ratio));
}
