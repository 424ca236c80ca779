import { kindOf, textOf, toBaseMessage, type MessageInput } from "../messages.js";
import { currentRequestIndex, messageText } from "../lexical/request-text.js";
import { containsPhrase, wordsOf } from "../lexical/words.js";
import { readGrants } from "./discovery.js";
import type { ResolvedGroup } from "./groups.js";
import type { RouteReason } from "./types.js";

/** The settings selection depends on, besides the messages. */
export interface SelectionSettings {
  groups: readonly ResolvedGroup[];
  followUpMaxWords: number;
  followUpDepth: number;
  /** Whether this request's caller may use admin groups. */
  allowed: boolean;
}

/** Groups chosen for one call, before tools are gathered. */
export interface GroupChoice {
  groups: ResolvedGroup[];
  reasons: RouteReason[];
  withheld: string[];
  followUp: boolean;
}

const SOURCE_ORDER: Readonly<Record<RouteReason["source"], number>> = { keyword: 0, answered: 1, grant: 2, always: 3 };

/**
 * Choose the groups of the current request: the keywords of the request; the
 * grants of `discover_tool_groups` results in its turn; when it is a follow-up (at
 * most `followUpMaxWords` words, no keyword of its own), everything the turn it answers had (recursively, `followUpDepth`
 * turns back) and the keywords of the assistant message it answers; then the
 * `always` groups. Admin groups are withheld from unauthorized callers.
 * Pure and deterministic; reads only the turns it needs, newest first.
 */
export function chooseGroups(messages: readonly MessageInput[], settings: SelectionSettings): GroupChoice {
  const n = messages.length;
  const start = currentRequestIndex(messages);
  const current = turnReasons(messages, settings, start, n, 0);
  const reasons = [...current.reasons];
  for (const group of settings.groups) if (group.always) reasons.push({ group: group.name, source: "always", keywords: [], turnsBack: 0 });

  const order = new Map(settings.groups.map((group, index) => [group.name, index] as const));
  const chosen = new Set(reasons.map((reason) => reason.group));
  const groups: ResolvedGroup[] = [];
  const withheld: string[] = [];
  for (const group of settings.groups) {
    if (!chosen.has(group.name)) continue;
    if (group.admin && !settings.allowed) withheld.push(group.name);
    else groups.push(group);
  }
  const kept = reasons
    .filter((reason) => !withheld.includes(reason.group))
    .sort(
      (a, b) =>
        (order.get(a.group) as number) - (order.get(b.group) as number) ||
        a.turnsBack - b.turnsBack ||
        SOURCE_ORDER[a.source] - SOURCE_ORDER[b.source],
    );
  return { groups, reasons: kept, withheld, followUp: current.followUp };
}

/** Reasons of the turn `messages[start, end)`; `start` is its human message (or -1 for none). */
function turnReasons(messages: readonly MessageInput[], settings: SelectionSettings, start: number, end: number, depth: number): { reasons: RouteReason[]; followUp: boolean } {
  const words = start < 0 ? [] : wordsOf(messageText(messages[start] as MessageInput, start));
  const reasons = keywordReasons(settings.groups, words, "keyword", depth);
  const previous = start < 0 ? -1 : currentRequestIndex(messages, start);
  // A short request that names no group itself ("yes, do that") answers the turn before.
  // Grants do not count: a grant later in the turn must not drop what the turn inherited.
  const followUp = previous >= 0 && reasons.length === 0 && depth < settings.followUpDepth && words.length <= settings.followUpMaxWords && settings.followUpMaxWords > 0;
  for (const name of new Set(readGrants(messages, Math.max(start, 0), end))) {
    if (settings.groups.some((group) => group.name === name)) reasons.push({ group: name, source: "grant", keywords: [], turnsBack: depth });
  }
  if (followUp) {
    reasons.push(...turnReasons(messages, settings, previous, start, depth + 1).reasons);
    const answered = answeredText(messages, previous, start);
    reasons.push(...keywordReasons(settings.groups, wordsOf(answered), "answered", depth + 1));
  }
  return { reasons, followUp };
}

function keywordReasons(groups: readonly ResolvedGroup[], words: readonly string[], source: "keyword" | "answered", turnsBack: number): RouteReason[] {
  const reasons: RouteReason[] = [];
  if (words.length === 0) return reasons;
  for (const group of groups) {
    const matched = group.keywords.filter((keyword) => containsPhrase(words, keyword.words)).map((keyword) => keyword.keyword);
    if (matched.length > 0) reasons.push({ group: group.name, source, keywords: matched, turnsBack });
  }
  return reasons;
}

/** The text of the last assistant message of a turn: what a follow-up answers. */
function answeredText(messages: readonly MessageInput[], from: number, to: number): string {
  for (let i = to - 1; i > from; i--) {
    if (kindOf(messages[i], i) !== "ai") continue;
    const text = textOf(toBaseMessage(messages[i] as MessageInput, i).content);
    if (text.trim() !== "") return text;
  }
  return "";
}
