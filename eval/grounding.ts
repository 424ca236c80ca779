import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { readableText } from "@contextview/test-support";

/**
 * Grounding of a system's tool calls: of each recorded tool call's argument values
 * (strings and numbers, 3 characters or more) that occur earlier in the
 * conversation, the share the view of the model call that made it showed. The
 * replay model is scripted, so call k's tool calls are the recorded ones and its
 * view is the one built for the messages before that AI message.
 */
export interface Grounding {
  /** Argument values the conversation showed before their call (each distinct value once per tool call). */
  values: number;
  /** Of those, the values the view of their model call showed (a view over the limit shows nothing). */
  visible: number;
  /** `visible / values`; 1 when no call reuses a value. */
  ratio: number;
  /** Tool calls with at least one such value. */
  calls: number;
}

/** Argument leaves a model copies from earlier text: strings and numbers of length ≥ 3, distinct. */
export function argumentValues(args: unknown): string[] {
  const out = new Set<string>();
  const walk = (value: unknown): void => {
    if (typeof value === "string" || (typeof value === "number" && Number.isFinite(value))) {
      const text = String(value);
      if (text.length >= 3) out.add(text);
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk(args);
  return [...out];
}

const WORD = /[A-Za-z0-9]/;

/** Whether `value` occurs in `text` as a whole token: no letter or digit right before or after it ("250" is not in "2500"). */
export function appears(text: string, value: string): boolean {
  for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) {
    const before = text[at - 1];
    const after = text[at + value.length];
    if ((before === undefined || !WORD.test(before)) && (after === undefined || !WORD.test(after))) return true;
  }
  return false;
}

/**
 * Grounding over one run: `transcript` is the recorded conversation, `points[k]`
 * the index of the AI message model call k answered with, `views[k]` what call k
 * was shown (absent when it never happened) and `withinLimit[k]` whether it fit.
 */
export function grounding(transcript: readonly BaseMessage[], points: readonly number[], views: readonly (readonly BaseMessage[] | undefined)[], withinLimit: readonly boolean[]): Grounding {
  const texts = transcript.map((m) => readableText([m]));
  let values = 0;
  let visible = 0;
  let calls = 0;
  points.forEach((point, k) => {
    const view = views[k];
    const shown = view && withinLimit[k] ? readableText(view) : "";
    for (const call of (transcript[point] as AIMessage).tool_calls ?? []) {
      const earlier = argumentValues(call.args).filter((value) => texts.slice(0, point).some((text) => appears(text, value)));
      if (earlier.length === 0) continue;
      calls++;
      values += earlier.length;
      visible += earlier.filter((value) => appears(shown, value)).length;
    }
  });
  return { values, visible, ratio: values ? visible / values : 1, calls };
}
