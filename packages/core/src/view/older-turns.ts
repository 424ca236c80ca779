import type { BaseMessage } from "@langchain/core/messages";
import { microCompact } from "../compact/index.js";
import type { ClearStepState } from "./clear-step.js";
import type { TurnWalk } from "./find-turns.js";
import { dropTurnExcerpts, HISTORY_LABEL, labelMessage } from "./head.js";
import { minMessageTokens, prepareTurn, withMessages, type PrepareContext, type PreparedTurn } from "./prepare-turn.js";
import { ToolResultCompactor, type CompactOptions } from "./tool-result-compactor.js";

/** How many of the newest older turns fit a room, and whether that is all of them. */
export interface OlderFit {
  fit: number;
  all: boolean;
}

/** How the older turns' results are compacted when the view compacts them (see {@link OlderTurns}). */
export interface OlderCompaction {
  options: CompactOptions;
  /** The current turn's tool results: the newest, counted first when older results clear in steps. */
  newestResults: number;
  /** Messages of the thread before the walk's (a summarized prefix): excerpt lines number the thread's messages. @default 0 */
  shift?: number | undefined;
}

/** The turns from one on in excerpt form (see {@link OlderTurns.excerpts}): the label and the excerpts, or nothing. */
export interface ExcerptsForm {
  /** The label and the message of excerpts; empty when no line fits. */
  readonly head: readonly BaseMessage[];
  /** Tokens of `head`: 0 when empty. */
  readonly tokens: number;
  /** Excerpt lines (user or assistant) in it. */
  readonly count: number;
}

/** A turn with its tool results cleared (see {@link OlderTurns.cleared}), and how many were. */
export interface ClearedForm {
  turn: PreparedTurn;
  results: number;
}

const NO_EXCERPTS: ExcerptsForm = Object.freeze({ head: [], tokens: 0, count: 0 });

/**
 * The older-turns source of a view: the turns before the current one, newest first,
 * each prepared only when the view reaches it, and each of its forms made once when
 * first asked. A choice of forms is an {@link OlderForms}: every turn as prepared
 * (`"whole"`), or every turn with its results micro-compacted across the turns
 * (`"compacted"`: the newest results kept, older ones cleared in steps, counted from
 * the current turn's results on). A turn's form with every result cleared (`cleared`)
 * and the excerpt form of the turns left out (`excerpts`) are made here too. Nothing is
 * changed by asking: the allocation weighs the forms, and the view shows the ones it chose.
 *
 * @example
 * ```ts
 * const older = new OlderTurns(walk, ctx, { options, newestResults: current.toolResults }, headroom);
 * older.forms("whole").fitting(6000).all; // true when every older turn fits 6,000 tokens as prepared
 * older.forms("compacted").turn(0);      // the newest older turn, its results compacted
 * older.cleared(3)?.results;             // results the fourth newest turn shows cleared
 * older.excerpts(5, 620).count;          // excerpt lines of the turns from the sixth newest on, in 620 tokens
 * ```
 */
export class OlderTurns {
  private readonly wholeForms: PreparedTurn[] = [];
  private readonly compactedForms: PreparedTurn[] = [];
  private readonly clearedForms: ClearedForm[] = [];
  private readonly excerptForms = new Map<string, ExcerptsForm>();
  private readonly options: CompactOptions;
  /** How excerpt lines name their messages: the bound recall tool, and the summarized prefix before the walk. */
  private readonly excerptRecall: { toolName: string; shift: number } | undefined;
  private readonly state: ClearStepState;
  private readonly levels: { whole: OlderForms; compacted: OlderForms };
  /** What any prepared message costs at least: a turn not read yet is skipped when its messages at this cost exceed the room. */
  private readonly floor: number;
  /** Compacts the turns' results; also makes the smaller form a view may show the newest turn in (`shrink`). */
  readonly compactor: ToolResultCompactor;

  constructor(
    private readonly walk: TurnWalk,
    private readonly prepare: PrepareContext,
    compaction: OlderCompaction,
    /** The most room older turns can have in this view: the limit less the fixed part, before the current turn (see `clearedBand`). */
    readonly headroom = Number.POSITIVE_INFINITY,
  ) {
    this.state = { seen: compaction.newestResults, clearing: false };
    this.options = compaction.options;
    const toolName = compaction.options.recallToolName;
    this.excerptRecall = toolName === undefined ? undefined : { toolName, shift: compaction.shift ?? 0 };
    this.floor = minMessageTokens(prepare.estimator);
    this.compactor = new ToolResultCompactor(compaction.options, prepare.estimator);
    this.levels = { whole: new OlderForms(this, "whole"), compacted: new OlderForms(this, "compacted") };
  }

  /** The older turns in the forms of `level` (the same object for each level). */
  forms(level: OlderLevel): OlderForms {
    return this.levels[level];
  }

  /** Older turns the view read, as prepared, newest first: `read[j]` is the j-th newest. */
  get read(): readonly PreparedTurn[] {
    return this.wholeForms;
  }

  /** Older turn `j` (0 = the newest) as prepared, when first reached; undefined when there is none. */
  whole(j: number): PreparedTurn | undefined {
    const start = this.walk.olderTurnStart(j);
    if (start === undefined) return undefined;
    return this.wholeForms[j] ?? (this.wholeForms[j] = prepareTurn(this.prepare, start, this.walk.olderTurnEnd(j), false));
  }

  /**
   * Older turn `j` with its results compacted; the turns after it are compacted first, newest
   * first, for the newest results are the ones kept whole (see {@link ToolResultCompactor.compact}).
   */
  compacted(j: number): PreparedTurn | undefined {
    while (this.compactedForms.length <= j) {
      const turn = this.whole(this.compactedForms.length);
      if (turn === undefined) return undefined;
      this.compactedForms.push(this.compactor.compact(turn, this.state));
    }
    return this.compactedForms[j];
  }

  /**
   * Older turn `j` as prepared (never its compacted form, so the text is the same whether
   * or not the history is compacted) with every tool result larger than its notice cleared,
   * ids and pairing kept, and how many were; the turn itself when none is; undefined when
   * there is no such turn. Made once: the band and the turn kept cleared below the window
   * show the same text (see `clearedBand`).
   */
  cleared(j: number): ClearedForm | undefined {
    const cached = this.clearedForms[j];
    if (cached !== undefined) return cached;
    const prepared = this.whole(j);
    if (prepared === undefined) return undefined;
    const { estimator } = this.prepare;
    const { maxToolResultTokens, recallToolName, excludeTools } = this.options;
    const result = microCompact(prepared.messages, { keepRecentToolResults: 0, maxToolResultTokens, estimator, recallToolName, excludeTools });
    let results = 0;
    const messages = result.messages.map((shown, i) => {
      const message = prepared.messages[i] as BaseMessage;
      if (shown === message || estimator.estimateMessage(message) <= estimator.estimateMessage(shown)) return message;
      results++;
      return shown;
    });
    const form = results === 0 ? { turn: prepared, results: 0 } : { turn: withMessages(prepared, messages, estimator.estimateMessages(messages)), results };
    return (this.clearedForms[j] = form);
  }

  /** The compacted forms made so far, newest first (see {@link compacted}). */
  get compactedSoFar(): readonly PreparedTurn[] {
    return this.compactedForms;
  }

  /** True when older turn `j` exists (0 = the newest); finding it walks back over the turns after it. */
  exists(j: number): boolean {
    return this.walk.olderTurnExists(j);
  }

  /**
   * The older turns from `from` on (0 = the newest) in their excerpt form, within `room`
   * tokens, label included: the first request and the last answer of the newest of them,
   * one line each, as many turns as fit (see {@link dropTurnExcerpts}); made once for each
   * `from` and `room`. The allocation weighs it and the view shows the same object.
   */
  excerpts(from: number, room: number): ExcerptsForm {
    const key = `${from}:${room}`;
    let form = this.excerptForms.get(key);
    if (form === undefined) {
      form = this.excerptsWithin(from, room);
      this.excerptForms.set(key, form);
    }
    return form;
  }

  private excerptsWithin(from: number, room: number): ExcerptsForm {
    const { walk, prepare } = this;
    const label = labelMessage(HISTORY_LABEL);
    const labelTokens = prepare.estimator.estimateMessage(label);
    if (room <= labelTokens) return NO_EXCERPTS;
    const span = (k: number) => {
      const start = walk.olderTurnStart(from + k);
      return start === undefined ? undefined : { start, end: walk.olderTurnEnd(from + k) };
    };
    const excerpts = dropTurnExcerpts(walk.source, (i) => walk.kind(i), span, room - labelTokens, prepare.estimator, this.excerptRecall);
    if (excerpts.message === null) return NO_EXCERPTS;
    const head = [label, excerpts.message];
    return { head, tokens: prepare.estimator.estimateMessages(head), count: excerpts.count };
  }

  /** True when there is an older turn before the newest one. */
  hasMoreThanNewest(): boolean {
    return this.walk.olderTurnStart(1) !== undefined;
  }

  /**
   * True when older turn `j` is not prepared yet and surely costs more than `left` tokens in
   * any form (its messages at the least any prepared message costs): it is left unread.
   */
  surelyOver(j: number, left: number): boolean {
    if (this.wholeForms[j] !== undefined || this.floor <= 0 || !this.walk.olderTurnExists(j)) return false;
    return this.walk.keepsMoreThan(this.walk.olderTurnEnd(j), Math.floor(left / this.floor));
  }
}

/** The forms of an {@link OlderForms}: the older turns as prepared, or with their results compacted. */
export type OlderLevel = "whole" | "compacted";

/**
 * One choice of forms for a view's older turns (see {@link OlderTurns.forms}): every turn
 * at `level`, the newest maybe in a smaller form of its own ({@link withNewest}). The
 * history's allocation reads the turns through it; it changes nothing of the source.
 *
 * @example
 * ```ts
 * const forms = older.forms("compacted");
 * forms.fitting(4000);                         // { fit: 3, all: false }
 * forms.withNewest(shrunk).turn(0) === shrunk; // true
 * ```
 */
export class OlderForms {
  constructor(
    private readonly source: OlderTurns,
    readonly level: OlderLevel,
    private readonly newestForm?: PreparedTurn | undefined,
  ) {}

  /** These forms with the newest older turn shown as `turn` (a smaller form of it). */
  withNewest(turn: PreparedTurn): OlderForms {
    return new OlderForms(this.source, this.level, turn);
  }

  /** The most room older turns can have in this view (see {@link OlderTurns.headroom}). */
  get headroom(): number {
    return this.source.headroom;
  }

  /** The newest older turn in these forms, when the view reached it. */
  get newest(): PreparedTurn | undefined {
    return this.source.read[0] === undefined ? undefined : this.turn(0);
  }

  /** Older turn `j` (0 = the newest) in these forms, prepared when first reached; undefined when there is none. */
  turn(j: number): PreparedTurn | undefined {
    if (j === 0 && this.newestForm !== undefined) return this.newestForm;
    return this.level === "whole" ? this.source.whole(j) : this.source.compacted(j);
  }

  /** Older turn `j` as prepared, before any compaction; undefined when there is none. */
  uncompacted(j: number): PreparedTurn | undefined {
    return this.source.whole(j);
  }

  /** Older turn `j` as prepared with its tool results cleared (see {@link OlderTurns.cleared}); undefined when there is none. */
  cleared(j: number): ClearedForm | undefined {
    return this.source.cleared(j);
  }

  /** The turns in these forms as far as the view reached them at this level, newest first. */
  get reached(): readonly PreparedTurn[] {
    const turns = this.level === "whole" ? this.source.read : this.source.compactedSoFar;
    return this.newestForm === undefined || turns.length === 0 ? turns : [this.newestForm, ...turns.slice(1)];
  }

  /** How many of the newest older turns fit `avail` tokens in these forms, and whether that is all of them. */
  fitting(avail: number): OlderFit {
    let used = 0;
    for (let j = 0; ; j++) {
      if (this.source.surelyOver(j, avail - used)) return { fit: j, all: false };
      const turn = this.turn(j);
      if (turn === undefined) return { fit: j, all: true };
      if (used + turn.tokens > avail) return { fit: j, all: false };
      used += turn.tokens;
    }
  }

  /** True when older turn `j` exists (0 = the newest). */
  exists(j: number): boolean {
    return this.source.exists(j);
  }

  /** The older turns from `from` on in their excerpt form within `room` tokens (see {@link OlderTurns.excerpts}). */
  excerpts(from: number, room: number): ExcerptsForm {
    return this.source.excerpts(from, room);
  }

  /** True when there is an older turn before the newest one. */
  hasMoreThanNewest(): boolean {
    return this.source.hasMoreThanNewest();
  }

  /** True when older turn `j` is not prepared yet and surely costs more than `left` tokens (see {@link OlderTurns.surelyOver}). */
  surelyOver(j: number, left: number): boolean {
    return this.source.surelyOver(j, left);
  }
}
