import { invalidOption } from "../errors.js";
import type { CompactionState } from "./contracts.js";
import { objectAt, countAt, finiteAt } from "../validate.js";

function summaryFrom(value: unknown, field = "state.summary"): CompactionState["summary"] {
  if (value === null) return null;
  if (value === undefined) throw invalidOption(field, "null or an object", value);
  const summary = objectAt(field, value);
  const prefixHash = summary["prefixHash"];
  if (typeof prefixHash !== "string" || prefixHash === "") throw invalidOption(`${field}.prefixHash`, "a non-empty string", prefixHash);
  const text = summary["text"];
  if (typeof text !== "string") throw invalidOption(`${field}.text`, "a string", text);
  return {
    prefixN: countAt(`${field}.prefixN`, summary["prefixN"]),
    prefixHash,
    text,
    createdAt: finiteAt(`${field}.createdAt`, summary["createdAt"]),
  };
}

/**
 * A checked copy of a compaction state holding only its known fields, so what a
 * store writes always reads back equal through JSON. Throws `INVALID_OPTION`
 * naming the first wrong field (`state.failures`, `state.summary.text`…).
 *
 * @example
 * ```ts
 * parseCompactionState(JSON.parse(row.state)); // CompactionState
 * ```
 */
export function parseCompactionState(value: unknown): CompactionState {
  const record = objectAt("state", value);
  if (record["version"] !== 1) throw invalidOption("state.version", "1", record["version"]);
  const state: CompactionState = {
    version: 1,
    summary: summaryFrom(record["summary"]),
    failures: countAt("state.failures", record["failures"]),
  };
  if (record["turnSummary"] !== undefined && record["turnSummary"] !== null) {
    const summary = summaryFrom(record["turnSummary"], "state.turnSummary")!;
    const steps = countAt("state.turnSummary.steps", objectAt("state.turnSummary", record["turnSummary"])["steps"]);
    if (steps < 1) throw invalidOption("state.turnSummary.steps", "a positive integer", steps);
    state.turnSummary = { ...summary, steps };
  }
  if (record["skipUntil"] !== undefined) state.skipUntil = finiteAt("state.skipUntil", record["skipUntil"]);
  if (record["calibration"] !== undefined) {
    const calibration = objectAt("state.calibration", record["calibration"]);
    const ratio = finiteAt("state.calibration.ratio", calibration["ratio"]);
    if (ratio <= 0) throw invalidOption("state.calibration.ratio", "a positive finite number", ratio);
    state.calibration = { ratio, samples: countAt("state.calibration.samples", calibration["samples"]) };
  }
  return state;
}
