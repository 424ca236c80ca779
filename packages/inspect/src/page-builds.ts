import { InspectError } from "./errors.js";

/** Builds one thread's page (the inspector's `inspectThread` then `renderThreadPage`). */
export type BuildPage = (threadId: string, userId: string) => Promise<string>;

/** What a thread's data is at now (its newest checkpoint and view record); a page built at that version stays true. */
export type VersionOf = (threadId: string, userId: string) => Promise<string>;

/** The bounds of {@link PageBuilds}. */
export interface PageBuildLimits {
  /** Builds running at once. */
  running: number;
  /** Builds waiting for a turn; one more is refused with `BUSY`. */
  waiting: number;
  /** Characters of built pages kept; the newest page is kept whatever its size. */
  cachedChars: number;
}

/**
 * The limits `--serve` runs with: one build at a time (a build is CPU work on the one
 * event loop, so two at once only finish later), 8 waiting, 64 Mi characters of pages kept.
 *
 * @example
 * ```ts
 * new PageBuilds(build, versionOf, { ...DEFAULT_PAGE_BUILD_LIMITS, waiting: 2 });
 * ```
 */
export const DEFAULT_PAGE_BUILD_LIMITS: Readonly<PageBuildLimits> = Object.freeze({ running: 1, waiting: 8, cachedChars: 64 * 1024 * 1024 });

/**
 * The thread pages of `--serve`: a page is built once per version of its thread's data
 * (the newest checkpoint and view record, from `versionOf`) and served from memory
 * until that changes; requests for a page being built wait for that build; at most
 * `running` builds run at once and `waiting` wait, the rest are refused (`BUSY`).
 * Without `versionOf` nothing is cached, but identical requests still share a build.
 *
 * @example
 * ```ts
 * const pages = new PageBuilds(async (threadId, userId) => renderThreadPage(await inspectThread({ ...sources, threadId, userId })));
 * const page = await pages.page("t-1", "u-1");
 * ```
 */
export class PageBuilds {
  private readonly cache = new Map<string, { version: string; page: string }>();
  private readonly inFlight = new Map<string, Promise<string>>();
  private readonly queue: (() => void)[] = [];
  private running = 0;
  private cachedChars = 0;

  constructor(
    private readonly build: BuildPage,
    private readonly versionOf?: VersionOf,
    private readonly limits: Readonly<PageBuildLimits> = DEFAULT_PAGE_BUILD_LIMITS,
  ) {}

  /** The page of a thread as it is now: from the cache when its version has not moved, else from a build. */
  async page(threadId: string, userId: string): Promise<string> {
    const key = JSON.stringify([threadId, userId]);
    const version = this.versionOf === undefined ? undefined : await this.versionOf(threadId, userId);
    const cached = this.cache.get(key);
    if (version !== undefined && cached?.version === version) {
      // Most recently used last: eviction takes the first.
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached.page;
    }
    const buildKey = JSON.stringify([threadId, userId, version ?? null]);
    const shared = this.inFlight.get(buildKey);
    if (shared !== undefined) return shared;
    if (this.running >= this.limits.running && this.queue.length >= this.limits.waiting) {
      const building = this.running + this.queue.length;
      throw new InspectError("BUSY", `The inspector is already building ${building} pages; try again when they are done`, { field: "thread" });
    }
    const built = this.inTurn(() => this.build(threadId, userId)).then((page) => {
      if (version !== undefined) this.keep(key, version, page);
      return page;
    });
    this.inFlight.set(buildKey, built);
    // The build's own promise carries any failure to its callers; this one only cleans up.
    void built.then(
      () => this.inFlight.delete(buildKey),
      () => this.inFlight.delete(buildKey),
    );
    return built;
  }

  /** `task` once fewer than `limits.running` builds run, in the order asked. */
  private async inTurn<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limits.running) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      // The next waiting build takes this one's place; the count only drops when none waits.
      const next = this.queue.shift();
      if (next === undefined) this.running--;
      else next();
    }
  }

  private keep(key: string, version: string, page: string): void {
    const previous = this.cache.get(key);
    if (previous !== undefined) this.cachedChars -= previous.page.length;
    this.cache.delete(key);
    this.cache.set(key, { version, page });
    this.cachedChars += page.length;
    for (const [oldest, entry] of this.cache) {
      if (this.cachedChars <= this.limits.cachedChars || oldest === key) break;
      this.cache.delete(oldest);
      this.cachedChars -= entry.page.length;
    }
  }
}
