import fc from "fast-check";
import { truncateUtf8, utf8Length } from "../../src/text.js";
import { EVIDENCE_LIMITS, EXCERPT_GAP, makeExcerpt } from "../../src/evidence/index.js";

const wellFormed = (text: string) => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

describe("truncateUtf8", () => {
  it.each([
    ["hello", 3, "hel"],
    ["héllo", 2, "h"],
    ["héllo", 3, "hé"],
    ["a😀b", 4, "a"],
    ["a😀b", 5, "a😀"],
    ["", 10, ""],
  ])("truncateUtf8(%j, %i) is %j", (text, bytes, expected) => {
    expect(truncateUtf8(text, bytes)).toBe(expected);
  });
});

describe("makeExcerpt", () => {
  it("keeps a short text whole, whitespace collapsed", () => {
    expect(makeExcerpt("  We  must\n\nhurry  ", 0)).toEqual({ text: "We must hurry", truncated: false });
  });

  it("cuts a long text to 900 bytes and marks the gap", () => {
    const excerpt = makeExcerpt("é".repeat(2000), 0);
    expect(excerpt.truncated).toBe(true);
    expect(excerpt.text.endsWith(` ${EXCERPT_GAP}`)).toBe(true);
    expect(utf8Length(excerpt.text)).toBeLessThanOrEqual(EVIDENCE_LIMITS.maxExcerptBytes);
  });

  it("starts at the keyword's sentence when it lies beyond the head", () => {
    const text = `${"Filler words here. ".repeat(100)}We must never deploy on Fridays. ${"More. ".repeat(300)}`;
    const excerpt = makeExcerpt(text, text.indexOf("must"));
    expect(excerpt.text.startsWith(`${EXCERPT_GAP} We must never deploy on Fridays.`)).toBe(true);
    expect(excerpt.truncated).toBe(true);
  });

  it("always fits the bound and never splits a surrogate pair", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 3000 }), fc.nat(3000), (text, offset) => {
        const excerpt = makeExcerpt(text, Math.min(offset, text.length));
        expect(utf8Length(excerpt.text)).toBeLessThanOrEqual(EVIDENCE_LIMITS.maxExcerptBytes);
        expect(wellFormed(excerpt.text)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
