import type { ClearedForm, OlderForms } from "./older-turns.js";
import type { PreparedTurn } from "./prepare-turn.js";
import { chooseKept, type CutCandidate } from "./select.js";

/** Older turns kept in a room, the oldest of them with their tool results cleared (see {@link clearedBand}). */
export interface ClearedBand {
  /** The newest older turns shown in their form (whole, or compacted with the history). */
  whole: number;
  /** The older turns before them shown with every tool result cleared, newest first. */
  cleared: PreparedTurn[];
  /** Tool results cleared in {@link cleared}. */
  results: number;
  /** Every older turn is shown, whole or cleared. */
  all: boolean;
}

/**
 * The share of the older turns' whole room (the limit less the fixed part, before the
 * current turn) the band may take. The band's room does not move with the current
 * turn's size, so its anchor holds through a tool loop; what it leaves goes to the turns
 * shown whole. Chosen on `pnpm eval` (0.3 to 1 tried; see docs/evaluation.md). With
 * `dropStep` 0 there is no anchor to hold: the band may take the whole room.
 */
export const BAND_SHARE = 0.6;

/**
 * The older turns a room keeps when they do not all fit whole: each turn's best form that
 * fits before it is left out, in two parts, each ending on a stable anchor (see
 * {@link chooseKept}):
 *
 * 1. **the band** — the newest turns whose forms with their tool results cleared (ids,
 *    calls, requests and answers kept) fit {@link BAND_SHARE} of `older.headroom` (and the
 *    room); its oldest turn is an anchor among those that keep at least `1 − 3 × dropStep`
 *    of that filled;
 * 2. **whole** — of those, the newest shown whole again (as the history shows them), in
 *    what the band leaves of the room; its oldest is an anchor the same way, over what
 *    showing each turn whole costs beyond its cleared form.
 *
 * With steps both anchors hold while the conversation grows: a turn leaves the whole
 * part for the band at the end of the band, so the band — the head of the view — is sent
 * again as it was, and only the turns after it are sent anew. A turn's cleared form is the
 * older-turns source's (`OlderForms.cleared`): made from the turn as prepared, so it is the
 * same text whether or not the history is compacted; a result no larger than its notice
 * stays whole. Undefined when no turn of the band has a result to clear (the band is then
 * the whole turns {@link chooseKept} keeps).
 *
 * @param room - The older turns' room in this view (their room before the current turn,
 *   the limit less the fixed part, is `older.headroom`).
 *
 * @example
 * ```ts
 * const band = clearedBand(older, 6000, 0.25);
 * band?.whole;          // 3: the newest three older turns whole
 * band?.cleared.length; // 9: the nine before them with their results cleared
 * ```
 */
export function clearedBand(older: OlderForms, room: number, dropStep: number): ClearedBand | undefined {
  // Without steps no anchor is held, so the band may take all the room (see BAND_SHARE).
  const bandRoom = dropStep === 0 ? room : Math.min(room, Math.floor(BAND_SHARE * older.headroom));
  const { forms, all } = bandForms(older, bandRoom);
  const count = all ? forms.length : chooseKept(forms.map((f) => f.turn), forms.length, bandRoom, dropStep);
  const band = forms.slice(0, count);
  if (band.every((f) => f.results === 0)) return undefined;
  // What showing each turn whole (as the history shows it) costs beyond its cleared form, in what the band leaves.
  const upRoom = band.reduce((left, f) => left - f.turn.tokens, room);
  const upgrade = (j: number) => {
    const { turn } = band[j] as ClearedForm;
    return { key: turn.key, tokens: Math.max(0, (older.turn(j) as PreparedTurn).tokens - turn.tokens) };
  };
  const whole = wholeAnchor(count, upgrade, upRoom, dropStep);
  const cleared = band.slice(whole);
  return { whole, cleared: cleared.map((f) => f.turn), results: cleared.reduce((sum, f) => sum + f.results, 0), all };
}

/**
 * How many of the band's `count` newest turns are shown whole: every one when all fit
 * `upRoom`, else the strongest anchor (see {@link chooseKept}) among the counts whose
 * upgrades (`upgrade(j)`, newest first: what turn `j` costs whole beyond cleared, made
 * only for the turns that may be shown whole) fit it and fill at least
 * `1 − 3 × dropStep` of it. Held to three quarters of the whole room as well, the views
 * would leave none of it idle, but the anchor moved on more calls: 2 to 4 points of cached
 * share lower on three fixtures of `pnpm eval`.
 */
function wholeAnchor(count: number, upgrade: (j: number) => CutCandidate, upRoom: number, dropStep: number): number {
  const upgrades: CutCandidate[] = [];
  let up = 0;
  while (upgrades.length < count) {
    const next = upgrade(upgrades.length);
    if (up + next.tokens > upRoom) break;
    upgrades.push(next);
    up += next.tokens;
  }
  return upgrades.length === count ? count : chooseKept(upgrades, upgrades.length, upRoom, dropStep);
}

/** The cleared forms of the newest older turns that fit `room` together, and whether that is all of them. */
function bandForms(older: OlderForms, room: number): { forms: ClearedForm[]; all: boolean } {
  const forms: ClearedForm[] = [];
  let used = 0;
  for (let j = 0; !older.surelyOver(j, room - used); j++) {
    const form = older.cleared(j);
    if (form === undefined) return { forms, all: true };
    if (used + form.turn.tokens > room) break;
    forms.push(form);
    used += form.turn.tokens;
  }
  return { forms, all: false };
}
