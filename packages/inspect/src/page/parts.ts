import type { TokenReport } from "@contextview/core";

/** The parts of a view's budget, in the order they are charged and drawn. */
export const BUDGET_PARTS = [
  { key: "system", label: "System", color: "#64748b" },
  { key: "memories", label: "Memories", color: "#a855f7" },
  { key: "tools", label: "Tools", color: "#f59e0b" },
  { key: "summary", label: "Summary / evidence", color: "#10b981" },
  { key: "history", label: "Older history", color: "#3b82f6" },
  { key: "current", label: "Current turn", color: "#f43f5e" },
] as const satisfies readonly { key: keyof TokenReport; label: string; color: string }[];
