import { readNoteLines } from "@contextview/core/tool-results";
import { indexHeadings, splitFrontmatter } from "../../src/compact/note-lines.js";

const note = ["---", "title: T", "---", "# One", "a", "## Two", "b", "```", "# code", "```", "### Three"].join("\n");

describe("splitFrontmatter", () => {
  it.each([
    ["---\na: 1\n---\nbody", "---\na: 1\n---\n", "body"],
    ["---\r\na: 1\r\n---\r\nbody", "---\r\na: 1\r\n---\r\n", "body"],
    ["---\na: 1\n...\nbody", "---\na: 1\n...\n", "body"],
    ["---\nunclosed", "", "---\nunclosed"],
    ["# no frontmatter\n---\n", "", "# no frontmatter\n---\n"],
    ["---\n---\n", "---\n---\n", ""],
  ])("%j", (text, frontmatter, body) => {
    expect(splitFrontmatter(text)).toEqual({ frontmatter, body });
  });
});

describe("indexHeadings", () => {
  it.each([
    ["# A\ntext\n## B", 10, ["L1 # A", "L3 ## B"], 0, 3],
    ["#not a heading\n####### seven", 10, [], 0, 2],
    ["```\n# in code\n```\n# out", 10, ["L4 # out"], 0, 4],
    ["~~~\n# in code\n```\n# still code\n~~~\n   # indented", 10, ["L6 # indented"], 0, 6],
    ["# a\n# b\n# c", 2, ["L1 # a", "L2 # b"], 1, 3],
    ["", 5, [], 0, 0],
    ["a\nb\n", 5, [], 0, 2],
  ])("%j (max %i)", (body, max, headings, omitted, lines) => {
    expect(indexHeadings(body, max)).toEqual({ headings, omitted, lines });
  });
});

describe("readNoteLines", () => {
  it.each([
    [1, 2, "# One\na", 1, 2],
    [3, 1, "## Two", 3, 3],
    [7, 5, "```\n### Three", 7, 8],
    [9, 3, "", 9, 8],
  ])("startLine %i, maxLines %i", (startLine, maxLines, text, first, last) => {
    const read = readNoteLines(note, { startLine, maxLines });
    expect(read).toMatchObject({ startLine: first, endLine: last, totalLines: 8, text, frontmatter: "---\ntitle: T\n---\n" });
    expect(read.headings).toEqual(["L1 # One", "L3 ## Two", "L8 ### Three"]);
  });

  it.each([
    [{ startLine: 0 }, "`startLine`"],
    [{ startLine: 1, maxLines: 0 }, "`maxLines`"],
    [{ startLine: 1, maxHeadings: -1 }, "`maxHeadings`"],
  ])("rejects %p", (options, field) => {
    expect(() => readNoteLines(note, options)).toThrow(field);
  });
});

describe("indexHeadings: long headings", () => {
  it.each([0, 1])("cuts a long heading without splitting a surrogate pair (offset %i)", (offset) => {
    const heading = `# ${"x".repeat(offset)}${"😀".repeat(100)}`;
    const [line] = indexHeadings(heading, 5).headings;
    expect(line).toBeDefined();
    expect(line).not.toMatch(/[\ud800-\udbff]$/);
    expect((line as string).length).toBeLessThanOrEqual("L1 ".length + 120);
  });
});
