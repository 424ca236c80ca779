import { jsonNestsDeeperThan } from "../../src/compact/inspect.js";
import { prefixLength, suffixStart } from "../../src/compact/text-excerpt.js";

describe("surrogate-safe cuts", () => {
  it.each([
    ["abcdef", 3, false, 3],
    ["ab😀cd", 3, false, 2],
    ["ab😀cd", 4, false, 4],
    ["ab\ud800", 3, false, 3],
    ["line one\nline two", 12, true, 9],
    ["abcdefghij\nk", 5, true, 5],
    ["abc", 10, false, 3],
  ])("prefixLength(%j, %i, %p) = %i", (text, max, lines, expected) => {
    expect(prefixLength(text, max, lines)).toBe(expected);
  });

  it.each([
    ["abcdef", 2, 4],
    ["ab😀cd", 3, 4],
    ["ab😀cd", 4, 2],
    ["abc", 10, 0],
  ])("suffixStart(%j, %i) = %i", (text, max, expected) => {
    expect(suffixStart(text, max)).toBe(expected);
  });
});

describe("jsonNestsDeeperThan", () => {
  it.each([
    ["[[[]]]", 3, false],
    ["[[[[]]]]", 3, true],
    ['{"a":"[[[[[[","b":[1]}', 2, false],
    ['{"a":"x\\"[[[[","b":[[1]]}', 2, true],
    ['{"a":"x\\\\","b":[[[1]]]}', 3, true],
    ['["\\\\\\"[[[["]', 1, false],
  ])("%s deeper than %i: %p", (text, max, expected) => {
    expect(jsonNestsDeeperThan(text, max)).toBe(expected);
  });
});
