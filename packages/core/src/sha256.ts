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

/** The part of a `node:crypto` Hash a {@link Sha256} uses. */
interface NativeHash {
  update(data: string, encoding: "utf8"): NativeHash;
  copy(): NativeHash;
  digest(encoding: "hex"): string;
}

/** What a {@link Sha256} runs on: Node's OpenSSL hash when the runtime has one, else `@noble/hashes`. */
type Backend = { native: NativeHash } | { noble: ReturnType<typeof sha256.create> };

/**
 * `node:crypto`'s `createHash` and the UTF-8 length of a string, read from the runtime
 * without importing a Node built-in (`process.getBuiltinModule`, Node 20.16 and later),
 * so the same module still loads in browsers and edge runtimes, which get undefined.
 */
function nativeHashing(): { createHash: (algorithm: "sha256") => NativeHash; byteLength: (text: string) => number } | undefined {
  const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  if (typeof get !== "function") return undefined;
  try {
    const crypto = get("node:crypto") as { createHash?: (algorithm: string) => NativeHash } | undefined;
    const buffer = get("node:buffer") as { Buffer?: { byteLength(text: string, encoding: "utf8"): number } } | undefined;
    const { createHash } = crypto ?? {};
    const Buffer = buffer?.Buffer;
    if (typeof createHash !== "function" || Buffer === undefined) return undefined;
    return { createHash: (algorithm) => createHash(algorithm), byteLength: (text) => Buffer.byteLength(text, "utf8") };
  } catch {
    return undefined;
  }
}

const native = nativeHashing();

/** True when {@link Sha256} runs on `node:crypto` in this runtime (Node 20.16 and later). */
export const SHA256_IS_NATIVE = native !== undefined;

/**
 * An incremental SHA-256 whose strings are hashed as UTF-8, as `node:crypto`'s
 * `hash.update(string)` does (lone surrogates become U+FFFD in both), so digests
 * stored by earlier versions stay valid. On Node it is `node:crypto`'s (found at
 * run time, see {@link nativeHashing}: several times faster on a long thread's
 * prefix); elsewhere pure JavaScript (`@noble/hashes`): core runs in browsers and
 * edge runtimes without Node built-ins. Both give the same digests.
 */
export class Sha256 {
  private constructor(private readonly backend: Backend) {}

  /** A new hash, optionally already fed `prefix`. */
  static create(prefix?: string): Sha256 {
    const hash = new Sha256(native === undefined ? { noble: sha256.create() } : { native: native.createHash("sha256") });
    return prefix === undefined ? hash : hash.update(prefix);
  }

  /** The pure JavaScript hash, whatever the runtime: what browsers and edge runtimes run (tests hold both to the same digests). */
  static portable(prefix?: string): Sha256 {
    const hash = new Sha256({ noble: sha256.create() });
    return prefix === undefined ? hash : hash.update(prefix);
  }

  update(text: string): this {
    const { backend } = this;
    if ("native" in backend) {
      bytesHashed += (native as NonNullable<typeof native>).byteLength(text);
      backend.native.update(text, "utf8");
      return this;
    }
    if (text.length > SCRATCH_UNITS) {
      const bytes = encoder.encode(text);
      bytesHashed += bytes.length;
      backend.noble.update(bytes);
      return this;
    }
    // UTF-8 takes at most 3 bytes per UTF-16 code unit. The hash copies what it keeps
    // before returning, so the buffer can be reused.
    const { written } = encoder.encodeInto(text, scratch);
    bytesHashed += written;
    backend.noble.update(scratch.subarray(0, written));
    return this;
  }

  /** An independent copy of the hash in its current state: feeding one does not feed the other. */
  clone(): Sha256 {
    const { backend } = this;
    return new Sha256("native" in backend ? { native: backend.native.copy() } : { noble: backend.noble.clone() });
  }

  /** The digest so far, as hex; the hash can still be fed afterwards. */
  peekHex(): string {
    const { backend } = this;
    return "native" in backend ? backend.native.copy().digest("hex") : bytesToHex(backend.noble.clone().digest());
  }

  /** The digest, as hex; the hash is finished. */
  hex(): string {
    const { backend } = this;
    return "native" in backend ? backend.native.digest("hex") : bytesToHex(backend.noble.digest());
  }
}
