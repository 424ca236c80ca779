import { tool } from "@langchain/core/tools";
import { readNoteLines } from "@contextview/core/tool-results";
import { z } from "zod";
import { LEDGER, NOTES } from "./data";

/**
 * Searches the ledger. Returns every matching row as JSON (large on purpose: this is
 * what overflows real agent conversations) and the same payload as the artifact.
 */
export const searchTransactions = tool(
  async ({ query, category, month }) => {
    const rows = LEDGER.filter(
      (t) =>
        (category === undefined || t.category === category) &&
        (month === undefined || t.date.startsWith(month)) &&
        (query === undefined || `${t.payee} ${t.memo}`.toLowerCase().includes(query.toLowerCase())),
    );
    const total = Math.round(rows.reduce((sum, t) => sum + t.amount, 0) * 100) / 100;
    const payload = { query: query ?? null, filters: { category: category ?? null, month: month ?? null }, count: rows.length, total, currency: "EUR", transactions: rows };
    return [JSON.stringify(payload), payload];
  },
  {
    name: "search_transactions",
    description: "Search the user's transactions by payee text, category and month (YYYY-MM). Returns the rows, their count and total.",
    schema: z.object({
      query: z.string().optional().describe("Text to find in payee or memo"),
      category: z.enum(["groceries", "dining", "transport", "utilities", "rent", "entertainment"]).optional(),
      month: z.string().regex(/^\d{4}-\d{2}$/).optional().describe("Month as YYYY-MM"),
    }),
    responseFormat: "content_and_artifact",
  },
);

/** Reads a note, whole or a focused range of content lines (frontmatter excluded). */
export const readNote = tool(
  async ({ path, startLine, maxLines }) => {
    const text = NOTES[path];
    if (text === undefined) return [`No note named ${path}. Notes: ${Object.keys(NOTES).join(", ")}`, { path, found: false }];
    if (startLine === undefined && maxLines === undefined) {
      const artifact = { path, markdown: text };
      return [JSON.stringify(artifact), artifact];
    }
    const focused = readNoteLines(text, { startLine: startLine ?? 1, ...(maxLines === undefined ? {} : { maxLines }) });
    const artifact = { path, markdown: text, model_context: { path, ...focused } };
    return [JSON.stringify(artifact.model_context), artifact];
  },
  {
    name: "read_note",
    description: "Read a markdown note by path; startLine (1-based, frontmatter excluded) and maxLines read a focused range.",
    schema: z.object({ path: z.string(), startLine: z.number().int().min(1).optional(), maxLines: z.number().int().min(1).optional() }),
    responseFormat: "content_and_artifact",
  },
);

export const TOOLS = [searchTransactions, readNote];
