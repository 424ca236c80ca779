import { EVIDENCE_LIMITS } from "./limits.js";
import type { EvidenceBucket } from "./state.js";

/**
 * The keyword heuristics, in priority order: the first bucket whose pattern
 * matches a message's text (its first 16 KiB) labels it; text matching none is
 * "recent context". Case-insensitive, whole words. A label asserts nothing: it
 * says a keyword was seen, not that a constraint holds, a decision was approved
 * or work is still open.
 *
 * - constraints: must, must not, never, always, require(d), need(s) to, have to,
 *   do not / don't, cannot / can't, should not, only, at most / at least,
 *   no more than, no later than, limit, deadline, budget, avoid, make sure,
 *   ensure, prefer, mandatory, forbidden, not allowed
 * - decisions: decide(d), decision, we'll / we will / let's go with or use,
 *   going with, chose / chosen / choose, agree(d), settled on, opted, switch(ed) to,
 *   instead of, selected, confirm(ed), approve(d)
 * - openWork: todo, to-do, next step(s), follow up / follow-up, pending, later,
 *   remaining, still need, not yet, open question, unresolved, in progress,
 *   blocked, will check / look / investigate / get back, tbd, action item(s),
 *   outstanding, remind me
 *
 * @example
 * ```ts
 * EVIDENCE_KEYWORDS.constraints.test("Never use floats for money"); // true
 * ```
 */
export const EVIDENCE_KEYWORDS: Readonly<Record<Exclude<EvidenceBucket, "recentContext">, RegExp>> = Object.freeze({
  constraints:
    /\b(?:must(?:n't| not)?|never|always|require[ds]?|requirements?|needs? to|ha(?:ve|s) to|do not|don't|cannot|can't|should(?:n't| not)|only|at (?:most|least)|no more than|no later than|limit(?:s|ed)?|deadline|budget|avoid|make sure|ensure|prefer(?:s|red|ably)?|mandatory|forbidden|not allowed)\b/i,
  decisions:
    /\b(?:decided?|decision|(?:we(?:'ll| will)|let's|let us) (?:go with|use)|going with|cho(?:se|sen|ose)|agree[ds]?|settled on|opted|switch(?:ed)? to|instead of|selected|confirm(?:ed)?|approved?)\b/i,
  openWork:
    /\b(?:todo|to-do|next steps?|follow[- ]up|pending|later|remaining|still need|not yet|open questions?|unresolved|in progress|blocked|will (?:check|look|investigate|get back)|tbd|action items?|outstanding|remind me)\b/i,
});

const ORDER = ["constraints", "decisions", "openWork"] as const;

/** The bucket a text falls in and where its keyword starts (0 for recent context). */
export interface EvidenceLabel {
  readonly bucket: EvidenceBucket;
  readonly offset: number;
}

/**
 * Label a message text with {@link EVIDENCE_KEYWORDS}.
 *
 * @example
 * ```ts
 * classifyEvidence("Let's go with Postgres"); // { bucket: "decisions", offset: 0 }
 * classifyEvidence("Thanks!"); // { bucket: "recentContext", offset: 0 }
 * ```
 */
export function classifyEvidence(text: string): EvidenceLabel {
  const window = text.length > EVIDENCE_LIMITS.classifyWindow ? text.slice(0, EVIDENCE_LIMITS.classifyWindow) : text;
  for (const bucket of ORDER) {
    const match = EVIDENCE_KEYWORDS[bucket].exec(window);
    if (match) return { bucket, offset: match.index };
  }
  return { bucket: "recentContext", offset: 0 };
}
