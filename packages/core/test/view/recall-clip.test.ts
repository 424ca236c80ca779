import fc from "fast-check";
import { safeCutBefore } from "../../src/text";
import { clip } from "../../src/view/recall-excerpt";

/** The definition: whitespace runs as one space, trimmed. */
const flatten = (text: string) => text.replace(/\s+/g, " ").trim();

describe("a recalled message's excerpt", () => {
  it("is the flattened text when it fits, else its first characters and the count of the message's characters left out", () => {
    expect(clip("  hello \n\t world  ", 20)).toBe("hello world");
    expect(clip("a  b\n c", 3)).toBe("a b [… 3 of 7 characters omitted]");
    expect(clip("ab cdef", 4)).toBe("ab c [… 3 of 7 characters omitted]");
    // Never half a surrogate pair.
    expect(clip("ab😀cd", 3)).toBe("ab [… 4 of 6 characters omitted]");
  });

  it("shows what the flattened text begins with and counts exactly what it leaves out (random texts)", () => {
    const chars = fc.constantFrom("a", "b", "é", " ", "  ", "\n", "\t", "\u00a0", "😀", "x");
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 80 }).map((parts) => parts.join("")), fc.integer({ min: 1, max: 40 }), (text, max) => {
        const out = clip(text, max);
        const flat = flatten(text);
        if (flat.length <= max) return expect(out).toBe(flat);
        const marker = / \[… (\d+) of (\d+) characters omitted\]$/.exec(out);
        expect(marker).not.toBeNull();
        const omitted = Number(marker?.[1]);
        expect(Number(marker?.[2])).toBe(text.length);
        const shown = out.slice(0, marker?.index);
        expect(shown.length).toBeLessThanOrEqual(max);
        expect(flat.startsWith(shown)).toBe(true);
        // The characters before the cut are what it shows; some after it are not blank.
        expect(flatten(text.slice(0, text.length - omitted))).toBe(shown);
        expect(flatten(text.slice(text.length - omitted))).not.toBe("");
        // As many as fit: `max`, one fewer not to split a surrogate pair, spaces at the cut trimmed.
        expect(shown).toBe(flat.slice(0, safeCutBefore(flat, max)).trimEnd());
      }),
      { numRuns: 2000, seed: 3 },
    );
  });

  it("reads a huge text only up to the cut", () => {
    const huge = `${"word ".repeat(400_000)}end`;
    expect(clip(huge, 20)).toBe(`word word word word [… ${huge.length - 20} of ${huge.length} characters omitted]`);
    const run = `ab ${"Qk".repeat(500_000)}`;
    expect(clip(run, 9)).toBe(`ab QkQkQk [… ${run.length - 9} of ${run.length} characters omitted]`);
  });
});
