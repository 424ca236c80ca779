import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex } from "@noble/hashes/utils";

const encoder = new TextEncoder();
/** Strings up to this many UTF-16 units are encoded into one reused buffer; longer ones get their own. */
const SCRATCH_UNITS = 256 * 1024;
const scratch = new Uint8Array(SCRATCH_UNITS * 3);

/**
 * An incremental SHA-256 whose strings are hashed as UTF-8, as `node:crypto`'s
 * `hash.update(string)` does (lone surrogates become U+FFFD in both), so digests
 * stored by earlier versions stay valid. Pure JavaScript (`@noble/hashes`): core
 * runs in browsers and edge runtimes without Node built-ins.
 */
export class Sha256 {
  private constructor(private readonly hash: ReturnType<typeof sha256.create>) {}

  /** A new hash, optionally already fed `prefix`. */
  static create(prefix?: string): Sha256 {
    const hash = new Sha256(sha256.create());
    return prefix === undefined ? hash : hash.update(prefix);
  }

  update(text: string): this {
    if (text.length > SCRATCH_UNITS) {
      this.hash.update(encoder.encode(text));
      return this;
    }
    // UTF-8 takes at most 3 bytes per UTF-16 code unit. The hash copies what it keeps
    // before returning, so the buffer can be reused.
    const { written } = encoder.encodeInto(text, scratch);
    this.hash.update(scratch.subarray(0, written));
    return this;
  }

  /** The digest so far, as hex; the hash can still be fed afterwards. */
  peekHex(): string {
    return bytesToHex(this.hash.clone().digest());
  }

  /** The digest, as hex; the hash is finished. */
  hex(): string {
    return bytesToHex(this.hash.digest());
  }
}
