import { clearRememberedHashes, feedRemembered, feedRememberedInSlices, REMEMBERED_HASH_CHARS } from "../src/remembered-hash.js";
import { Sha256, sha256BytesHashed } from "../src/sha256.js";
import { Slicer } from "../src/evidence/slicer.js";

afterEach(() => clearRememberedHashes());

/** A long text with a surrogate pair at every slice boundary and a lone surrogate, so cuts and UTF-8 both matter. */
const long = `${"a😀".repeat(REMEMBERED_HASH_CHARS)}\ud800 end`;

describe("a large text fed to SHA-256 is remembered by the state before it", () => {
  it.each([
    ["at once", (hash: Sha256, text: string) => Promise.resolve(feedRemembered(hash, text))],
    ["in slices", (hash: Sha256, text: string) => feedRememberedInSlices(hash, text, new Slicer(undefined, 0))],
  ])("%s: the digest a plain feed gives, and a copy of the text after the same state is not hashed again", async (_name, feed) => {
    const plain = Sha256.create("domain\n").update("3:abc").update(long).update("tail").hex();
    const first = await feed(Sha256.create("domain\n").update("3:abc"), long);
    expect(first.update("tail").hex()).toBe(plain);
    const copy = JSON.parse(JSON.stringify(long)) as string;
    const before = sha256BytesHashed();
    const again = await feed(Sha256.create("domain\n").update("3:abc"), copy);
    expect(sha256BytesHashed() - before).toBeLessThan(1000);
    expect(again.update("tail").hex()).toBe(plain);
    // Another state before it: hashed, with its own digest.
    const other = await feed(Sha256.create("domain\n").update("3:abd"), copy);
    expect(other.hex()).toBe(Sha256.create("domain\n").update("3:abd").update(long).hex());
  });
});
