import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex } from "@noble/hashes/utils";

const encoder = new TextEncoder();
/** Strings up to this many UTF-16 units are encoded into one reused buffer; longer ones get their own. */
const SCRATCH_UNITS = 256 * 1024;
const scratch = new Uint8Array(SCRATCH_UNITS * 3);
/** UTF-8 bytes fed to every Sha256 of this process, for measurements (`pnpm bench digest`). */
let bytesHashed = 0;

/**
 * UTF-8 bytes fed to SHA-256 by this process so far: a measurement counter, read
 * before and after a piece of work.
 *
 * @example
 * ```ts
 * const before = sha256BytesHashed();
 * await summaryPrefixHash(messages, 40);
 * console.log(sha256BytesHashed() - before);
 * ```
 */
export function sha256BytesHashed(): number {
  return bytesHashed;
}

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
      const bytes = encoder.encode(text);
      bytesHashed += bytes.length;
      this.hash.update(bytes);
      return this;
    }
    // UTF-8 takes at most 3 bytes per UTF-16 code unit. The hash copies what it keeps
    // before returning, so the buffer can be reused.
    const { written } = encoder.encodeInto(text, scratch);
    bytesHashed += written;
    this.hash.update(scratch.subarray(0, written));
    return this;
  }

  /** An independent copy of the hash in its current state: feeding one does not feed the other. */
  clone(): Sha256 {
    return new Sha256(this.hash.clone());
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
