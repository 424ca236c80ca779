import fc from "fast-check";
import { isHighSurrogate, isLowSurrogate, isWellFormedText, safeCutAfter, safeCutBefore, toWellFormedText, truncateUtf8, utf8Length } from "../../src/text.js";

const PAIR = "\ud83d\ude00";
/** Text made of pieces of every UTF-8 width, whole pairs and lone halves, so cuts meet surrogates everywhere. */
const mixedText = fc.array(fc.constantFrom("a", "é", "中", PAIR, "\ud800", "\udc00", "\n"), { maxLength: 40 }).map((pieces) => pieces.join(""));
const encoder = new TextEncoder();

const splitsPair = (text: string, at: number): boolean => at > 0 && at < text.length && isHighSurrogate(text.charCodeAt(at - 1)) && isLowSurrogate(text.charCodeAt(at));

describe("surrogate halves", () => {
  it.each([
    ["d7ff", false, false],
    ["d800", true, false],
    ["dbff", true, false],
    ["dc00", false, true],
    ["dfff", false, true],
    ["e000", false, false],
  ])("U+%s is high %s, low %s", (hex, high, low) => {
    expect(isHighSurrogate(parseInt(hex, 16))).toBe(high);
    expect(isLowSurrogate(parseInt(hex, 16))).toBe(low);
  });
});

describe("safeCutBefore and safeCutAfter", () => {
  it.each([
    // text, index, before, after
    [`a${PAIR}b`, 0, 0, 0],
    [`a${PAIR}b`, 1, 1, 1],
    [`a${PAIR}b`, 2, 1, 3],
    [`a${PAIR}b`, 3, 3, 3],
    [`a${PAIR}b`, 4, 4, 4],
    [PAIR, 1, 0, 2],
    ["a\ud800b", 2, 2, 2],
    ["a\udc00", 1, 1, 1],
  ])("cut %j at %i", (text, index, before, after) => {
    expect(safeCutBefore(text, index)).toBe(before);
    expect(safeCutAfter(text, index)).toBe(after);
  });

  it("moves a cut by one only when it falls inside a pair, at every boundary", () => {
    fc.assert(
      fc.property(mixedText, (text) => {
        for (let at = 0; at <= text.length; at++) {
          const inside = splitsPair(text, at);
          expect(safeCutBefore(text, at)).toBe(inside ? at - 1 : at);
          expect(safeCutAfter(text, at)).toBe(inside ? at + 1 : at);
          expect(splitsPair(text, safeCutBefore(text, at))).toBe(false);
          expect(splitsPair(text, safeCutAfter(text, at))).toBe(false);
        }
      }),
    );
  });
});

describe("utf8Length", () => {
  it("counts what a UTF-8 encoder writes, lone surrogates as U+FFFD", () => {
    fc.assert(fc.property(mixedText, (text) => expect(utf8Length(text)).toBe(encoder.encode(text).length)));
  });
});

describe("truncateUtf8", () => {
  it.each([
    ["héllo", 2, "h"],
    ["héllo", 3, "hé"],
    [`a${PAIR}`, 4, "a"],
    [`a${PAIR}`, 5, `a${PAIR}`],
    ["a\ud800", 4, "a\ud800"],
    ["abc", 0, ""],
  ])("truncateUtf8(%j, %i) is %j", (text, max, expected) => {
    expect(truncateUtf8(text, max)).toBe(expected);
  });

  it("gives the longest prefix within the byte limit that splits no pair", () => {
    fc.assert(
      fc.property(mixedText, fc.nat(60), (text, max) => {
        const kept = truncateUtf8(text, max);
        expect(text.startsWith(kept)).toBe(true);
        expect(utf8Length(kept)).toBeLessThanOrEqual(max);
        expect(splitsPair(text, kept.length)).toBe(false);
        if (kept.length < text.length) {
          const next = safeCutAfter(text, kept.length + 1);
          expect(utf8Length(text.slice(0, next))).toBeGreaterThan(max);
        }
      }),
    );
  });
});

describe("well-formed text", () => {
  it("finds lone surrogates and replaces them as UTF-8 does", () => {
    fc.assert(
      fc.property(mixedText, (text) => {
        const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
        expect(isWellFormedText(text)).toBe(!lone);
        expect(toWellFormedText(text)).toBe(new TextDecoder().decode(encoder.encode(text)));
      }),
    );
  });
});
