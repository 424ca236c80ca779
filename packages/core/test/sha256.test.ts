import { createHash } from "node:crypto";
import fc from "fast-check";
import { Sha256 } from "../src/sha256.js";

const node = (parts: string[]) => parts.reduce((hash, part) => hash.update(part), createHash("sha256")).digest("hex");

describe("Sha256 (pure JS) agrees with node:crypto", () => {
  it.each([
    ["empty", [] as string[]],
    ["ascii", ["contextview.prefix.v1\n", "5:hello"]],
    ["multi-byte and astral", ["naïve ☕ ", "𝄞 and 😀"]],
    ["lone surrogates (UTF-8 U+FFFD in both)", ["\ud800", "x\udc00y"]],
    ["a long string", ["a".repeat(300_000)]],
  ])("%s", (_name, parts) => {
    const ours = parts.reduce((hash, part) => hash.update(part), Sha256.create());
    expect(ours.peekHex()).toBe(node(parts));
    expect(ours.hex()).toBe(node(parts));
  });

  it("agrees on any sequence of strings (property)", () => {
    const seed = Date.now() % 2 ** 31;
    console.log(`sha256 property seed ${seed}`);
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary", maxLength: 200 }), { maxLength: 20 }), (parts) => {
        expect(parts.reduce((hash, part) => hash.update(part), Sha256.create()).hex()).toBe(node(parts));
      }),
      { seed, numRuns: 300, interruptAfterTimeLimit: 5000 },
    );
  });

  it("peekHex leaves the hash usable", () => {
    const hash = Sha256.create("a");
    const first = hash.peekHex();
    expect(hash.update("b").hex()).toBe(node(["a", "b"]));
    expect(first).toBe(node(["a"]));
  });
});
