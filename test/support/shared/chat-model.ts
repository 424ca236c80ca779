// The recording chat model is public (`@contextview/langgraph/testing`); the tests use that one.
import { tool } from "@langchain/core/tools";
import { z } from "zod";

export { RecordingChatModel, toolsMarker, type RecordedCall, type RecordingChatModelOptions, type StreamedAnswer } from "@contextview/langgraph/testing";

/** A search tool whose result is `rows` rows of JSON (about 30 bytes each). */
export function searchTool(rows = 40) {
  return tool(
    async ({ query, limit }: { query: string; limit: number }) =>
      JSON.stringify({ query, limit, rows: Array.from({ length: rows }, (_, r) => ({ id: `row-${r}`, amount: r * 3.5, memo: `payment ${r}` })) }),
    { name: "search_transactions", description: "Search transactions.", schema: z.object({ query: z.string(), limit: z.number() }) },
  );
}
