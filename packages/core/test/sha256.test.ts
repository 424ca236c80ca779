import { createHash } from "node:crypto";
import fc from "fast-check";
import { Sha256, SHA256_IS_NATIVE, sha256BytesHashed } from "../src/sha256.js";

const node = (parts: string[]) => parts.reduce((hash, part) => hash.update(part), createHash("sha256")).digest("hex");

describe.each([
  ["on Node (node:crypto found at run time)", (prefix?: string) => Sha256.create(prefix)],
  ["pure JS, as browsers run it", (prefix?: string) => Sha256.portable(prefix)],
])("Sha256 %s agrees with node:crypto", (_runtime, create) => {
  it.each([
    ["empty", [] as string[]],
    ["ascii", ["contextview.prefix.v1\n", "5:hello"]],
    ["multi-byte and astral", ["naïve ☕ ", "𝄞 and 😀"]],
    ["lone surrogates (UTF-8 U+FFFD in both)", ["\ud800", "x\udc00y"]],
    ["a long string", ["a".repeat(300_000)]],
  ])("%s", (_name, parts) => {
    const ours = parts.reduce((hash, part) => hash.update(part), create());
    expect(ours.peekHex()).toBe(node(parts));
    expect(ours.hex()).toBe(node(parts));
  });

  it("agrees on any sequence of strings (property)", () => {
    const seed = Date.now() % 2 ** 31;
    console.log(`sha256 property seed ${seed}`);
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary", maxLength: 200 }), { maxLength: 20 }), (parts) => {
        expect(parts.reduce((hash, part) => hash.update(part), create()).hex()).toBe(node(parts));
      }),
      { seed, numRuns: 300, interruptAfterTimeLimit: 5000 },
    );
  });

  it("peekHex leaves the hash usable", () => {
    const hash = create("a");
    const first = hash.peekHex();
    expect(hash.update("b").hex()).toBe(node(["a", "b"]));
    expect(first).toBe(node(["a"]));
  });
});

describe("the hash Node gets", () => {
  it("is node:crypto's, found without importing it, and counts the UTF-8 bytes it is fed as the pure one does", () => {
    expect(SHA256_IS_NATIVE).toBe(true);
    const text = "naïve ☕ 𝄞";
    let before = sha256BytesHashed();
    Sha256.create().update(text);
    const nativeBytes = sha256BytesHashed() - before;
    before = sha256BytesHashed();
    Sha256.portable().update(text);
    expect(sha256BytesHashed() - before).toBe(nativeBytes);
    expect(nativeBytes).toBe(Buffer.byteLength(text));
    // The clone of a native hash is independent, as the pure one's is.
    const hash = Sha256.create("a");
    const copy = hash.clone();
    expect(hash.update("b").hex()).toBe(node(["a", "b"]));
    expect(copy.hex()).toBe(node(["a"]));
  });
});
