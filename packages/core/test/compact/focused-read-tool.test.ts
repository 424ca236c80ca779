// The focused-read tool of docs/compaction.md, as written there (the note read from memory
// instead of a file): `responseFormat: "content_and_artifact"` is what puts the artifact,
// and so its model_context, in ToolMessage.artifact. Without it the pair is stringified.
import { ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { compactToolResult, compactionMarkerOf, readNoteLines } from "@contextview/core/tool-results";
import { noteRead } from "../fixtures/compaction/notes.js";

const note = noteRead(30);
const schema = z.object({ path: z.string(), startLine: z.number().int().min(1).default(1), maxLines: z.number().int().min(1).default(40) });
const read = async ({ path, startLine, maxLines }: z.infer<typeof schema>) => {
  const markdown = note.markdown;
  const focus = readNoteLines(markdown, { startLine, maxLines });
  return [JSON.stringify({ path, ...focus }), { path, markdown, model_context: { path, ...focus } }];
};
const call = { id: "call-1", name: "read_note", type: "tool_call" as const, args: { path: note.path, startLine: 40, maxLines: 120 } };

describe("the focused-read tool of docs/compaction.md", () => {
  it("with responseFormat content_and_artifact: the artifact carries model_context, and compaction keeps the focus", async () => {
    const readNote = tool(read, { name: "read_note", description: "Read lines of a markdown note.", schema, responseFormat: "content_and_artifact" });
    const message = (await readNote.invoke(call)) as ToolMessage;
    expect(ToolMessage.isInstance(message)).toBe(true);
    const focus = readNoteLines(note.markdown, { startLine: 40, maxLines: 120 });
    expect(message.artifact).toMatchObject({ path: note.path, model_context: { path: note.path, ...focus } });
    // Over the limit: compaction works from model_context (the focus), not the whole note.
    const compact = compactToolResult(message, 700);
    expect(compactionMarkerOf(compact)).toMatchObject({ origin: "model_context" });
    expect(JSON.parse(String(compact.content))).toMatchObject({ path: note.path, startLine: 40, endLine: focus.endLine, totalLines: focus.totalLines });
  });

  it("without it: no artifact, the pair is stringified into the content", async () => {
    const readNote = tool(read, { name: "read_note", description: "Read lines of a markdown note.", schema });
    const message = (await readNote.invoke(call)) as ToolMessage;
    expect(message.artifact).toBeUndefined();
    expect(String(message.content)).toContain("model_context");
  });
});
