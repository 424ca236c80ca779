import { ContextViewError, invalidOption } from "../errors.js";
import { digestPrefixes } from "./digest.js";
import { extendEvidence } from "./extend.js";
import { EVIDENCE_LIMITS } from "./limits.js";
import { Slicer } from "./slicer.js";
import { readSnapshot, type Snapshot } from "./snapshot.js";
import { EvidenceState } from "./state.js";

/** A stored evidence state and its revision (0 when nothing is stored). */
export interface EvidenceRecord {
  readonly state: EvidenceState;
  /** Increases by one on every write; compared to detect a concurrent writer. */
  readonly revision: number;
}

/**
 * How {@link updateEvidence} reaches one conversation's stored state. A store
 * implements it over its own storage; the heavy work (validation, hashing,
 * extraction) happens outside `commit`, which must be short and atomic.
 */
export interface EvidenceAccess {
  /** The committed state, or null when none is stored. */
  read(): EvidenceRecord | null | Promise<EvidenceRecord | null>;
  /**
   * In one transaction: if the stored revision still equals `expectedRevision`
   * (0 = no row), store `next` with revision `expectedRevision + 1` and return
   * true; otherwise change nothing and return false.
   */
  commit(expectedRevision: number, next: EvidenceState): boolean | Promise<boolean>;
}

/** Options of {@link updateEvidence} and of the stores' `update`. */
export interface EvidenceUpdateOptions {
  /**
   * Cancels the update; it then rejects with the signal's reason and writes nothing.
   * @default undefined
   */
  signal?: AbortSignal;
  /**
   * UTF-8 bytes of the largest user or assistant message evidence reads. A larger
   * one is not excerpted and is counted in `EvidenceState.unreadable`; every
   * message, whatever its size, is still hashed into the prefix digest (in slices
   * that yield to the event loop), so later turns keep entering evidence and an
   * edit of a large message is still seen as a changed prefix.
   * @default 16777216 (16 MiB)
   * @example
   * ```ts
   * await updateEvidence(messages, access, { maxMessageBytes: 1024 * 1024 }); // stores take it as a constructor option
   * ```
   */
  maxMessageBytes?: number;
  /**
   * What a changed summarized prefix (a fork, an edit, a concurrent branch) does:
   * `throw` a `PREFIX_CHANGED` error and keep the stored state, or `rebuild` the
   * evidence from this snapshot alone and store it, so the state describes the
   * checkpoint it was given. A snapshot shorter than the cursor, or whose current
   * request lies inside the summarized prefix, is rebuilt too in `rebuild` mode
   * (in `throw` mode it changes nothing).
   * @default "throw"
   */
  onPrefixChange?: "throw" | "rebuild";
  /**
   * Called once per rebuild with what it cost, before the rebuilt state is committed.
   * @default undefined
   */
  onRebuild?: (rebuild: EvidenceRebuild) => void;
}

/** What one rebuild of the evidence from a snapshot did. */
export interface EvidenceRebuild {
  /** The stored cursor the snapshot disagreed with. */
  readonly previousCursor: number;
  /** The cursor of the rebuilt state. */
  readonly cursor: number;
  /** Messages read again to rebuild (the new summarized prefix). */
  readonly messagesRead: number;
}

/** Optimistic attempts before giving up on a conversation other writers keep changing. */
const MAX_ATTEMPTS = 8;

/**
 * Checks `maxMessageBytes` once, when a store is created.
 *
 * @example
 * ```ts
 * resolveMaxMessageBytes(undefined); // 16777216
 * ```
 */
export function resolveMaxMessageBytes(value: number | undefined): number {
  if (value === undefined) return EVIDENCE_LIMITS.maxMessageBytes;
  if (!Number.isSafeInteger(value) || value <= 0) throw invalidOption("maxMessageBytes", "a positive integer", value);
  return value;
}

/**
 * Summarizes a full, append-only checkpoint snapshot into the stored evidence.
 *
 * Only messages before the newest HumanMessage are summarized (the current request
 * stays out until the next one arrives). A snapshot shorter than the cursor is
 * stale and changes nothing; one whose summarized prefix differs from the stored
 * digest throws `PREFIX_CHANGED` — or, with `onPrefixChange: "rebuild"`, the
 * evidence is rebuilt from this snapshot; a repeated snapshot changes nothing. Validation,
 * hashing and extraction yield to the event loop and run before `commit`, which
 * re-checks the revision so a concurrent writer is never lost or duplicated.
 *
 * @example
 * ```ts
 * const state = await updateEvidence(messages, {
 *   read: () => rows.get(key) ?? null,
 *   commit: (expected, next) => {
 *     if ((rows.get(key)?.revision ?? 0) !== expected) return false;
 *     rows.set(key, { state: next, revision: expected + 1 });
 *     return true;
 *   },
 * });
 * ```
 */
export async function updateEvidence(messages: unknown, access: EvidenceAccess, options: EvidenceUpdateOptions = {}): Promise<EvidenceState> {
  const { signal } = options;
  signal?.throwIfAborted();
  if (options.onPrefixChange !== undefined && options.onPrefixChange !== "throw" && options.onPrefixChange !== "rebuild") {
    throw invalidOption("onPrefixChange", '"throw" or "rebuild"', options.onPrefixChange);
  }
  if (options.onRebuild !== undefined && typeof options.onRebuild !== "function") throw invalidOption("onRebuild", "a function", options.onRebuild);
  const slicer = new Slicer(signal);
  const snapshot = await readSnapshot(messages, resolveMaxMessageBytes(options.maxMessageBytes), slicer);
  const target = Math.max(0, snapshot.lastHuman);
  let seenRevision = 0;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const record = await access.read();
    // The row vanished while this update was running: the conversation was deleted, and stays so.
    if (record === null && seenRevision > 0) return EvidenceState.empty();
    const current = record?.state ?? EvidenceState.empty();
    seenRevision = record?.revision ?? 0;
    const rebuild = options.onPrefixChange === "rebuild";
    if (snapshot.messages.length < current.cursor || (rebuild && target < current.cursor)) {
      if (!rebuild) return current;
      const next = await rebuildEvidence(snapshot, target, current.cursor, slicer, options);
      if (await access.commit(seenRevision, next)) return next;
      continue;
    }
    const end = Math.max(current.cursor, target);
    const [digest, nextDigest] = await digestPrefixes(snapshot.messages, [current.cursor, end], slicer, messages as readonly unknown[]);
    if (digest !== current.prefixDigest && rebuild) {
      const next = await rebuildEvidence(snapshot, target, current.cursor, slicer, options);
      if (await access.commit(seenRevision, next)) return next;
      continue;
    }
    if (digest !== current.prefixDigest) {
      throw new ContextViewError(
        "PREFIX_CHANGED",
        `The first ${current.cursor} checkpoint messages differ from the ones already summarized; ` +
          "a reset, branch or fork needs a new conversation key.",
        { cursor: current.cursor },
      );
    }
    if (end === current.cursor) return current;
    const next = await extendEvidence(current, snapshot.messages, end, nextDigest as string, slicer);
    signal?.throwIfAborted();
    if (await access.commit(seenRevision, next)) return next;
  }
  throw new ContextViewError("STORE_ERROR", `Gave up updating evidence after ${MAX_ATTEMPTS} concurrent changes by other writers`, {
    attempts: MAX_ATTEMPTS,
  });
}

/**
 * The evidence of `snapshot[0, target)` alone, as if the conversation had always
 * been this snapshot: the same state an incremental update would reach.
 */
async function rebuildEvidence(snapshot: Snapshot, target: number, previousCursor: number, slicer: Slicer, options: EvidenceUpdateOptions): Promise<EvidenceState> {
  const [digest] = await digestPrefixes(snapshot.messages, [target], slicer);
  const next = await extendEvidence(EvidenceState.empty(), snapshot.messages, target, digest as string, slicer);
  options.signal?.throwIfAborted();
  options.onRebuild?.({ previousCursor, cursor: target, messagesRead: target });
  return next;
}
