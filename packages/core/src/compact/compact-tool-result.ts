// size: one entry (compactToolResult) with its level search and notices; splitting it would scatter one decision
import { ToolMessage, type BaseMessage, type MessageContent } from "@langchain/core/messages";
import { ContextViewError, describeValue, invalidOption } from "../errors.js";
import { safeJson, textTokensAtLeast } from "../estimate.js";
import { blockText, copyMessage, isImageBlock } from "../messages.js";
import { jsonNestsDeeperThan, readPayloadAsJson, type PayloadOrigin } from "./inspect.js";
import { compactionMarkerOf, withCompaction, type CompactionMarker, type CompactionOrigin, type JsonCompactionMarker } from "./marker.js";
import { isSharedResolution, resolveCompactOptions, type CompactToolResultOptions, type ResolvedCompactOptions } from "./options.js";
import { createProjector, type ReferenceMode } from "./project.js";
import { checkRecallToolName, RECALL_LINES, recallSentenceFor, recallValueFor, withoutRecallKey, withRecallKey, type RecallLine } from "./recall-notes.js";
import { attemptOf, freshMemo, keepTree, knownNotJson, memoOf, pickFromLadder, rememberNotJson, type Attempt, type ResultMemo } from "./result-memo.js";
import { fitTextExcerpt, parseTextExcerpt, renderTextExcerpt, sourceOfExcerpt, sourceOfText, type ExcerptSource } from "./text-excerpt.js";
import { inlineName } from "../inline-text.js";

/**
 * The text a model reads from a content (text blocks, other non-image blocks as
 * JSON) and the image blocks, which compaction keeps beside the compacted text.
 */
export function splitContent(content: MessageContent): { text: string; images: unknown[] } {
  if (typeof content === "string") return { text: content, images: [] };
  const parts: string[] = [];
  const images: unknown[] = [];
  for (const block of content as unknown[]) {
    if (isImageBlock(block)) images.push(block);
    else parts.push(blockText(block) ?? safeJson(block));
  }
  return { text: parts.join("\n"), images };
}

type Source =
  | { kind: "tree"; value: unknown; origin: PayloadOrigin; trusted: boolean }
  | { kind: "text"; excerpt: ExcerptSource; origin: CompactionOrigin; fresh: boolean };
/** A structured payload to project. */
export type TreeSource = Extract<Source, { kind: "tree" }>;

/** Where reading an artifact starts: the value to walk, its origin, and whether its `toJSON` was already called. */
export interface ArtifactPayload {
  readonly root: unknown;
  readonly origin: Exclude<PayloadOrigin, "content">;
  readonly rootToJsonDone: boolean;
}

/**
 * The part of an artifact compaction reads, before any value below is: its own
 * `toJSON` is called, then its `model_context` is taken when it has one. Undefined
 * for an artifact that is no object; throws `INVALID_TOOL_RESULT` when either throws.
 *
 * @example
 * ```ts
 * const payload = artifactPayload(message.artifact); // { root: artifact.model_context, origin: "model_context", ... }
 * ```
 */
export function artifactPayload(artifact: unknown): ArtifactPayload | undefined {
  if (typeof artifact !== "object" || artifact === null) return undefined;
  let top: unknown = artifact;
  let focus: unknown;
  try {
    const toJson = (artifact as { toJSON?: unknown }).toJSON;
    if (typeof toJson === "function") top = (toJson as (key: string) => unknown).call(artifact, "");
    const isRecord = typeof top === "object" && top !== null && !Array.isArray(top);
    focus = isRecord && Object.hasOwn(top as object, "model_context") ? (top as Record<string, unknown>)["model_context"] : undefined;
  } catch (cause) {
    throw new ContextViewError("INVALID_TOOL_RESULT", `The tool result artifact could not be read: ${describeValue(cause)} thrown`, { origin: "artifact" }, { cause });
  }
  if (focus !== undefined && focus !== null) return { root: focus, origin: "model_context", rootToJsonDone: false };
  return { root: top, origin: "artifact", rootToJsonDone: true };
}

/**
 * The artifact as JSON.stringify reads it: its own `toJSON` first, then its
 * `model_context` when it has one, then every value below (see {@link readPayloadAsJson}).
 * What compaction may show of an artifact, and so all the recall tool reads of it.
 */
export function readArtifactSource(artifact: unknown, options: ResolvedCompactOptions): { value: unknown; origin: PayloadOrigin } | undefined {
  const payload = artifactPayload(artifact);
  if (payload === undefined) return undefined;
  return { value: readPayloadAsJson(payload.root, payload.origin, options, payload.rootToJsonDone), origin: payload.origin };
}

/**
 * True when `text`, past any JSON white space (however long: it is scanned, not
 * copied), starts an object or an array: the only contents compaction projects.
 *
 * @example
 * ```ts
 * startsJsonTree(" ".repeat(100) + "[1]"); // true
 * ```
 */
export function startsJsonTree(text: string): boolean {
  let at = 0;
  let code = text.charCodeAt(0);
  // JSON's white space: space, tab, line feed, carriage return (JSON.parse refuses any other).
  while (code === 32 || code === 9 || code === 10 || code === 13) code = text.charCodeAt(++at);
  return code === 123 || code === 91;
}

/**
 * The value of a JSON content, or undefined when it is not an object or array, nests
 * too deep, or does not parse. A large text that does not parse is remembered as
 * such (see `rememberNotJson`): it is never parsed again, in any view.
 */
export function parseJsonContent(text: string, options: ResolvedCompactOptions): unknown {
  if (!startsJsonTree(text) || knownNotJson(text)) return undefined;
  const value = parseJsonTree(text, options);
  if (value === NOT_JSON) {
    rememberNotJson(text);
    return undefined;
  }
  return value;
}

/**
 * What {@link parseJsonTree} returns for a text JSON.parse refuses.
 *
 * @example
 * ```ts
 * if (parseJsonTree(text, options) === NOT_JSON) return { kind: "text", notJson: true };
 * ```
 */
export const NOT_JSON: unique symbol = Symbol("not JSON");

/**
 * {@link parseJsonContent} without its memory (a worker's job reports instead
 * what it found): the value, undefined for a text that is no object or array or
 * nests too deep, {@link NOT_JSON} for one that does not parse.
 *
 * @example
 * ```ts
 * const value = parseJsonTree(job.text, options); // in a worker thread
 * ```
 */
export function parseJsonTree(text: string, options: ResolvedCompactOptions): unknown {
  if (!startsJsonTree(text)) return undefined;
  // Content is only text the model would read anyway: too deep to project, it is excerpted as text.
  if (jsonNestsDeeperThan(text, options.maxDepth)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

function chooseSource(message: ToolMessage, text: string, options: ResolvedCompactOptions): Source {
  const marker = compactionMarkerOf(message);
  if (marker?.form === "json") {
    const value = parseJsonContent(text, options);
    if (value !== undefined) return { kind: "tree", value: withoutRecallKey(value), origin: marker.origin, trusted: true };
  } else if (marker?.form === "text") {
    const previous = parseTextExcerpt(text, marker);
    if (previous !== undefined) return { kind: "text", excerpt: sourceOfExcerpt(previous), origin: marker.origin, fresh: false };
  } else if (marker === undefined) {
    const artifact = readArtifactSource(message.artifact, options);
    if (artifact !== undefined && typeof artifact.value === "string") {
      return { kind: "text", excerpt: sourceOfText(artifact.value), origin: artifact.origin, fresh: true };
    }
    if (artifact !== undefined && typeof artifact.value === "object" && artifact.value !== null) {
      return { kind: "tree", value: artifact.value, origin: artifact.origin, trusted: false };
    }
    const value = parseJsonContent(text, options);
    if (value !== undefined) return { kind: "tree", value, origin: "content", trusted: false };
  }
  return { kind: "text", excerpt: sourceOfText(text), origin: "content", fresh: true };
}

/** The memo of one result's compaction. */
export type Memo = ResultMemo<Source>;

/** The memo of `message`'s compaction: remembered for large results compacted with shared options, else used once. */
function memoFor(message: ToolMessage, text: string, options: ResolvedCompactOptions): Memo {
  return isSharedResolution(options) ? memoOf<Source>(text, message.artifact, compactionMarkerOf(message), options) : freshMemo<Source>(text.length);
}

/** The source of a result, read (and a JSON content parsed) once per memo. */
function sourceOf(memo: Memo, message: ToolMessage, text: string, options: ResolvedCompactOptions): Source {
  if (memo.tree === undefined) {
    try {
      keepTree(memo, { source: chooseSource(message, text, options) });
    } catch (error) {
      keepTree(memo, { error });
    }
  }
  const tree = memo.tree!;
  if ("error" in tree) throw tree.error;
  return tree.source;
}

/**
 * The source of a result, except that a JSON payload (content or artifact) whose
 * projections were computed elsewhere (see `precomputeLargeResults`) is read only
 * when a projection that was not computed is asked for: its value is read on first use.
 */
function lazySourceOf(memo: Memo, message: ToolMessage, text: string, options: ResolvedCompactOptions): Source {
  if (memo.tree !== undefined || memo.precomputed === undefined) return sourceOf(memo, message, text, options);
  const { origin } = memo.precomputed;
  const read = (): unknown => {
    const source = sourceOf(memo, message, text, options);
    if (source.kind === "tree") return source.value;
    throw new ContextViewError("INVALID_TOOL_RESULT", "A tool result computed as JSON elsewhere did not read as JSON here", { origin });
  };
  return { kind: "tree", origin, trusted: false, get value() { return read(); } };
}

/** The projection of a tree source at `level` in `mode`, tried once per memo. */
export function attemptAt(memo: Memo, source: TreeSource, options: ResolvedCompactOptions, level: number, mode: ReferenceMode): Attempt {
  const key = `${mode}:${level}`;
  const known = memo.attempts.get(key);
  if (known !== undefined) return known;
  const json = projectedJson(memo, source, options, level, mode);
  const projection = json.projection;
  const attempt = attemptOf({ level, mode, tokens: options.estimator.estimateText(json.text), shortened: projection.shortened, omittedRows: projection.omittedRows, omittedChars: projection.omittedChars, projected: projection.projected }, json.text);
  memo.attempts.set(key, attempt);
  return attempt;
}

function projectedJson(memo: Memo, source: Extract<Source, { kind: "tree" }>, options: ResolvedCompactOptions, level: number, mode: ReferenceMode) {
  let projector = memo.tree !== undefined && "source" in memo.tree ? memo.tree.projector : undefined;
  if (projector === undefined) {
    // A lazy source is parsed here, and its tree kept in the memo.
    const value = source.value;
    projector = createProjector(value, options, source.trusted);
    if (memo.tree !== undefined && "source" in memo.tree) memo.tree.projector = projector;
  }
  const projection = projector(level, mode);
  return { projection, text: JSON.stringify(projection.value) };
}

/** The JSON of an attempt: kept when small, else projected again (a source dropped from the memo is read again first). */
function jsonOf(memo: Memo, source: Extract<Source, { kind: "tree" }>, options: ResolvedCompactOptions, attempt: Attempt): string {
  return attempt.json ?? projectedJson(memo, source, options, attempt.level, attempt.mode).text;
}

function jsonMarker(origin: CompactionOrigin, limitTokens: number, projection: Omit<Attempt, "json">, mode: ReferenceMode): JsonCompactionMarker {
  return {
    form: "json",
    origin,
    limitTokens,
    omittedRows: projection.omittedRows,
    omittedChars: projection.omittedChars,
    references: mode,
    projectedValues: projection.projected,
  };
}

/**
 * `requiredTokens` is the smallest form (identifiers only); `referencesTokens`, when known, the
 * lean references' floor; `originalTokens` is estimated when first read (see {@link originalTokens}):
 * a view that catches the error to narrow the result does not read a result of megabytes whole for it.
 */
function limitError(limit: number, required: number, original: () => number, origin: CompactionOrigin, extra: Record<string, number> = {}): ContextViewError {
  const details: Record<string, unknown> = { limitTokens: limit, requiredTokens: required };
  Object.defineProperty(details, "originalTokens", { enumerable: true, get: original });
  return new ContextViewError(
    "COMPACTION_LIMIT",
    `The required structure and identifiers of a tool result (${origin}) need ${required} estimated tokens but the limit is ${limit}; ` +
      "raise the limit, or have the tool return fewer rows or a `model_context` projection.",
    Object.assign(details, { origin, ...extra }),
  );
}

/** Stop searching once the level is known within this share (about 3%): the last probes would add a row or two. */
const LEVEL_TOLERANCE = 1 / 32;

/**
 * The most generous projection that fits, in the first reference mode whose floor
 * (level 0: no row kept) fits: lean references, then identifiers only. Output size
 * grows about linearly with the level, so levels are predicted from the last two
 * probes (falling back to bisection when a prediction does not halve the bracket):
 * a handful of probes, each proportional to the output, not the payload.
 */
function fitTree(memo: Memo, source: Extract<Source, { kind: "tree" }>, limit: number, original: () => number, options: ResolvedCompactOptions): Fitted {
  const full = searchLevels(memo, source, "full", limit, options);
  if (full.fitted !== undefined) return full.fitted;
  const ids = searchLevels(memo, source, "ids", limit, options);
  if (ids.fitted !== undefined) return ids.fitted;
  throw limitError(limit, ids.floor, original, source.origin, { referencesTokens: full.floor });
}

interface Fitted {
  json: string;
  projection: Omit<Attempt, "json">;
  mode: ReferenceMode;
}

function searchLevels(memo: Memo, source: Extract<Source, { kind: "tree" }>, mode: ReferenceMode, limit: number, options: ResolvedCompactOptions): { fitted?: Fitted; floor: number } {
  // Every level computed elsewhere: the most generous one that fits, read off without parsing the payload.
  const picked = pickFromLadder(memo, mode, limit);
  if (picked !== undefined) {
    if (picked.attempt === undefined) return { floor: picked.floor };
    return { fitted: { json: jsonOf(memo, source, options, picked.attempt), projection: picked.attempt, mode }, floor: 0 };
  }
  // Probes are remembered: a later limit probes mostly levels already tried (level 0 above all, the floor).
  const attempt = (level: number) => {
    const projection = attemptAt(memo, source, options, level, mode);
    return { level, projection, tokens: projection.tokens };
  };
  let best = attempt(0);
  if (best.tokens > limit) return { floor: best.tokens };
  let last = best;
  let high: { level: number; tokens: number } | undefined;
  let guess = 1;
  while (best.projection.shortened > 0) {
    const width = high === undefined ? Infinity : high.level - best.level;
    const next = attempt(guess);
    if (next.tokens <= limit) best = next;
    else high = next;
    if (next.tokens <= limit && next.projection.shortened === 0) break;
    if (high !== undefined && high.level - best.level <= Math.max(1, Math.floor(best.level * LEVEL_TOLERANCE))) break;
    const from = next === best ? last : best;
    const slope = (next.tokens - from.tokens) / (next.level - from.level);
    const predicted = slope > 0 ? best.level + Math.floor((limit - best.tokens) / slope) : best.level * 2 + 1;
    if (high === undefined) guess = Math.min(Math.max(predicted, best.level + 1), best.level * 8 + 8);
    else {
      const midpoint = Math.floor((best.level + high.level) / 2);
      const shrank = high.level - best.level <= width / 2;
      guess = shrank && predicted > best.level && predicted < high.level ? predicted : midpoint;
    }
    last = next;
  }
  return { fitted: { json: jsonOf(memo, source, options, best.projection), projection: best.projection, mode }, floor: 0 };
}

/**
 * Compact one tool result so its content fits `limitTokens` estimated tokens
 * (`estimator.estimateText` of the content's text).
 *
 * The source is, in order: `artifact.model_context` (a projection the tool
 * prepared), the artifact (object or array), JSON content, then plain text.
 * Structured payloads become valid JSON in which shortened collections and texts
 * are `$compacted` nodes that count what they leave out and keep the references
 * of omitted rows; plain text becomes a marked beginning-and-end excerpt. A
 * result that already fits is returned with its content unchanged.
 *
 * The returned ToolMessage keeps `tool_call_id`, `name`, `id`, `status` and the
 * artifact, and carries `response_metadata.contextview_compaction` (a
 * {@link CompactionMarker}); compacting it again cuts further and adds up the
 * omissions. Nothing of the input is mutated.
 *
 * Omitted rows keep lean references (identifiers, dates, one link); when those do
 * not fit, one identifier per row. Throws `COMPACTION_LIMIT` when even the
 * required structure and identifiers do not fit (details: `requiredTokens`, the
 * identifiers-only floor, and `referencesTokens`, the lean references' floor),
 * `INVALID_TOOL_RESULT` for an artifact that cannot be projected safely (cyclic,
 * too deep, BigInt, Map…), `INVALID_OPTION` for a bad limit or option.
 *
 * @example
 * ```ts
 * const compact = compactToolResult(toolMessage, 1500);
 * JSON.parse(compact.content as string).transactions;
 * // { "$compacted": "rows", returned: 500, retained: 12, omitted: 488, notice: "…", rows: [...],
 * //   omitted_refs: { fields: ["id", "date"], rows: [["t13", "2024-03-02"], …] } }
 * ```
 */
export function compactToolResult(message: BaseMessage, limitTokens: number, options?: CompactToolResultOptions): ToolMessage {
  if (!ToolMessage.isInstance(message)) throw invalidOption("message", "a ToolMessage", message);
  if (!Number.isSafeInteger(limitTokens) || limitTokens < 1) throw invalidOption("limitTokens", "a positive integer", limitTokens);
  const resolved = resolveCompactOptions(options);
  const estimate = (text: string) => resolved.estimator.estimateText(text);
  const { text, images } = splitContent(message.content);
  const original = originalTokens(text, resolved);
  if (textTokensAtLeast(resolved.estimator, text) <= limitTokens && original() <= limitTokens) return copyMessage(message, "tool") as ToolMessage;
  const withImages = (out: string): MessageContent => (images.length > 0 ? ([{ type: "text", text: out }, ...images] as MessageContent) : out);

  const previous = compactionMarkerOf(message);
  if (previous?.form === "cleared" || previous?.form === "narrowed") throw limitError(limitTokens, original(), original, "content");
  const recallToolName = checkRecallToolName(options?.recallToolName);
  const memo = memoFor(message, text, resolved);
  const at = (limit: number): { text: string; marker: CompactionMarker } => {
    let compacted = memo.compacted.get(limit);
    if (compacted === undefined) {
      try {
        compacted = compactSource(memo, message, text, limit, original, resolved);
      } catch (error) {
        compacted = { error };
      }
      memo.compacted.set(limit, compacted);
    }
    if ("error" in compacted) throw compacted.error;
    return compacted;
  };
  let compacted = recallToolName === undefined ? at(limitTokens) : withRecallLine(message, limitTokens, recallToolName, at, estimate);
  if (recallToolName !== undefined && compacted.marker.form === "text") compacted = excerptNamingRecall(sourceOf(memo, message, text, resolved), compacted, message, recallToolName, estimate);
  return withCompaction(message, withImages(compacted.text), { ...compacted.marker });
}

/**
 * The compacted form that names the recall call for its omitted rows (see
 * {@link recallValueFor}), within `limit`: for each line of {@link RECALL_LINES},
 * longest first, the payload is fitted to the limit less the line, and less any
 * overshoot on a second try; a line that cannot fit (below the smallest form) gives
 * way to the next. When none fits (or there is nothing to name), the form without it.
 */
function withRecallLine(
  message: ToolMessage,
  limit: number,
  toolName: string,
  at: (limit: number) => { text: string; marker: CompactionMarker },
  estimate: (text: string) => number,
): { text: string; marker: CompactionMarker } {
  const plain = at(limit);
  const lined = (form: { text: string; marker: CompactionMarker }, line: RecallLine): string | undefined => {
    if (form.marker.form !== "json" || form.marker.omittedRows === 0 || !form.text.startsWith("{") || !message.tool_call_id) return undefined;
    const value = recallValueFor(JSON.parse(form.text) as unknown, message.tool_call_id, form.marker.origin, toolName, line);
    return value === undefined ? undefined : withRecallKey(form.text, value);
  };
  for (const line of RECALL_LINES) {
    let text = lined(plain, line);
    if (text === undefined) continue;
    if (estimate(text) <= limit) return { text, marker: plain.marker };
    let reserve = estimate(text) - estimate(plain.text);
    for (let attempt = 0; attempt < 2 && reserve < limit; attempt++) {
      let form: { text: string; marker: CompactionMarker };
      try {
        form = at(limit - reserve);
      } catch {
        break;
      }
      text = lined(form, line);
      if (text === undefined) break;
      const tokens = estimate(text);
      if (tokens <= limit) return { text, marker: form.marker };
      reserve += tokens - limit;
    }
  }
  return plain;
}

/**
 * A text excerpt whose middle marker names the recall `read` call that returns
 * exactly the omitted characters, fitted within the same limit. Only for an
 * excerpt of the content (recall reads the content's text, not a text artifact);
 * when the marker with the call cannot fit, the excerpt without it.
 */
function excerptNamingRecall(
  source: Source,
  plain: { text: string; marker: CompactionMarker },
  message: ToolMessage,
  toolName: string,
  estimate: (text: string) => number,
): { text: string; marker: CompactionMarker } {
  const { marker } = plain;
  if (marker.form !== "text" || marker.origin !== "content" || marker.omittedChars === 0 || source.kind !== "text" || !message.tool_call_id) return plain;
  const recall = { toolName, message: message.tool_call_id };
  let excerpt;
  try {
    excerpt = fitTextExcerpt(source.excerpt, marker.limitTokens, estimate, recall);
  } catch {
    return plain;
  }
  return {
    text: renderTextExcerpt(excerpt, recall),
    marker: { ...marker, headChars: excerpt.head.length, tailChars: excerpt.tail.length, omittedChars: excerpt.omitted },
  };
}

/** The compacted text and marker of a result over its limit (see {@link compactToolResult}); images are added back by the caller. */
function compactSource(
  memo: Memo,
  message: ToolMessage,
  text: string,
  limitTokens: number,
  original: () => number,
  resolved: ResolvedCompactOptions,
): { text: string; marker: CompactionMarker } {
  const estimate = (value: string) => resolved.estimator.estimateText(value);
  const source = lazySourceOf(memo, message, text, resolved);
  if (source.kind === "tree") {
    const { json, projection, mode } = fitTree(memo, source, limitTokens, original, resolved);
    return { text: json, marker: jsonMarker(source.origin, limitTokens, projection, mode) };
  }
  if (source.fresh && estimate(source.excerpt.head) <= limitTokens) {
    // A text `model_context` the tool prepared that fits is shown as it is.
    const total = source.excerpt.total;
    return { text: source.excerpt.head, marker: {
      form: "text",
      origin: source.origin,
      limitTokens,
      headChars: total,
      tailChars: 0,
      omittedChars: 0,
      totalChars: total,
    } };
  }
  const excerpt = fitTextExcerpt(source.excerpt, limitTokens, estimate);
  return { text: renderTextExcerpt(excerpt), marker: {
    form: "text",
    origin: source.origin,
    limitTokens,
    headChars: excerpt.head.length,
    tailChars: excerpt.tail.length,
    omittedChars: excerpt.omitted,
    totalChars: excerpt.total,
  } };
}

/**
 * The estimate of a result's text, made when first asked: a text whose length alone puts it
 * over the limit (see `textTokensAtLeast`) is compacted without being read whole, and is
 * estimated only for what reports it (a notice's size, an error).
 */
function originalTokens(text: string, resolved: ResolvedCompactOptions): () => number {
  let tokens: number | undefined;
  return () => (tokens ??= resolved.estimator.estimateText(text));
}

/** What {@link compactOrNarrow} did to a tool result. */
export type FitOutcome = "whole" | "compacted" | "narrowed";

/**
 * Fit a tool result the model is answering from (one of the current turn) into
 * `limitTokens`, never clearing it: compacted with {@link compactToolResult} (lean
 * references, then identifiers only); when even the identifiers do not fit, its
 * totals and metadata with a notice to narrow the query (filters, paging); when
 * even that does not fit, a short notice with its size and row count. An artifact
 * that cannot be projected safely is left aside and the content compacted instead.
 * The notices never ask the model to call the same tool again.
 *
 * @example
 * ```ts
 * const { message, outcome } = compactOrNarrow(searchResult, 3000);
 * if (outcome === "narrowed") report.narrowed++;
 * ```
 */
export function compactOrNarrow(message: ToolMessage, limitTokens: number, options?: CompactToolResultOptions): { message: ToolMessage; outcome: FitOutcome } {
  const resolved = resolveCompactOptions(options);
  const { text } = splitContent(message.content);
  const original = originalTokens(text, resolved);
  const whole = textTokensAtLeast(resolved.estimator, text) <= limitTokens && original() <= limitTokens;
  if (whole) return { message: copyMessage(message, "tool") as ToolMessage, outcome: "whole" };
  let subject = message;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      return { message: compactToolResult(subject, limitTokens, options), outcome: "compacted" };
    } catch (error) {
      if (!ContextViewError.isInstance(error)) throw error;
      if (error.code === "INVALID_TOOL_RESULT" && subject.artifact !== undefined) {
        // The content is what the tool meant the model to read; the unsafe artifact stays in the checkpoint.
        subject = withoutArtifact(subject);
        continue;
      }
      if (error.code !== "COMPACTION_LIMIT" && error.code !== "INVALID_TOOL_RESULT") throw error;
      break;
    }
  }
  return { message: narrowToolResult(subject, message, limitTokens, original, resolved, options?.recallToolName), outcome: "narrowed" };
}

function withoutArtifact(message: ToolMessage): ToolMessage {
  const copy = copyMessage(message, "tool") as ToolMessage;
  copy.artifact = undefined;
  return copy;
}

/**
 * The totals of a result: its metadata and row counts, no row and no reference; or a
 * notice when even that does not fit. With a recall tool bound, each names the recall
 * call for the rows, with the longest line of {@link RECALL_LINES} that fits the limit
 * (a `"$recall"` key on the totals, a sentence after the notice); when no line fits
 * beside the totals, the notice with one, and only when neither fits, the form without.
 */
function narrowToolResult(
  subject: ToolMessage,
  message: ToolMessage,
  limitTokens: number,
  original: () => number,
  options: ResolvedCompactOptions,
  recall: string | undefined,
): ToolMessage {
  const { text, images } = splitContent(subject.content);
  let rows: number | undefined;
  let source: Source | undefined;
  const memo = memoFor(subject, text, options);
  try {
    source = lazySourceOf(memo, subject, text, options);
  } catch (error) {
    if (!ContextViewError.isInstance(error)) throw error;
  }
  const checked = checkRecallToolName(recall);
  const recallToolName = message.tool_call_id ? checked : undefined;
  const fitting = (lined: (line: RecallLine) => string | undefined): string | undefined => {
    if (recallToolName === undefined) return undefined;
    for (const line of RECALL_LINES) {
      const out = lined(line);
      if (out !== undefined && options.estimator.estimateText(out) <= limitTokens) return out;
    }
    return undefined;
  };
  const withImages = (out: string): MessageContent => (images.length > 0 ? ([{ type: "text", text: out }, ...images] as MessageContent) : out);
  let totals: { json: string; marker: JsonCompactionMarker } | undefined;
  if (source?.kind === "tree") {
    const projection = attemptAt(memo, source, options, 0, "none");
    if (projection.tokens <= limitTokens) {
      const json = jsonOf(memo, source, options, projection);
      totals = { json, marker: jsonMarker(source.origin, limitTokens, projection, "none") };
      const origin = source.origin;
      const value = json.startsWith("{") ? (JSON.parse(json) as unknown) : undefined;
      const lined = fitting((line) => {
        const note = value === undefined ? undefined : recallValueFor(value, message.tool_call_id, origin, recallToolName!, line);
        return note === undefined ? undefined : withRecallKey(json, note);
      });
      if (lined !== undefined || recallToolName === undefined) return withCompaction(message, withImages(lined ?? json), totals.marker);
    }
    rows = projection.omittedRows;
  }
  const tool = message.name ? `\`${inlineName(message.name)}\`` : "tool";
  const notice =
    `[The ${tool} result (tool_call_id ${message.tool_call_id}) is too large to show here: about ${original()} tokens` +
    `${rows === undefined ? "" : `, ${rows} rows`}. Narrow the query (filters, paging) for a result that fits.]`;
  const recalled = fitting((line) => {
    const sentence = recallSentenceFor(message, text, recallToolName!, line);
    return sentence === undefined ? undefined : `${notice.slice(0, -1)} ${sentence}]`;
  });
  if (recalled === undefined && totals !== undefined) return withCompaction(message, withImages(totals.json), totals.marker);
  const originalTokens = original();
  const marker: CompactionMarker = rows === undefined ? { form: "narrowed", originalTokens } : { form: "narrowed", originalTokens, returnedRows: rows };
  return withCompaction(message, recalled ?? notice, marker);
}
