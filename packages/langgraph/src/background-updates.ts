import type { ContextStore, MessageInput } from "@contextview/core";
import { conversationMapKey, type ConversationKey } from "@contextview/core/store";

/**
 * Evidence updates run after the request that asked for them (one request of
 * lag). Per conversation at most one update runs and one waits; a newer snapshot
 * replaces the waiting one, since it contains it (checkpoints are append-only).
 * Failures go to `onError`; `drain()` waits for everything, for shutdown.
 */
export class BackgroundUpdates {
  private readonly waiting = new Map<string, { key: ConversationKey; messages: readonly MessageInput[] }>();
  private readonly chains = new Map<string, Promise<void>>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly store: ContextStore,
    private readonly onError: (error: unknown, key: ConversationKey) => void,
  ) {}

  /** Updates scheduled or running. */
  get pending(): number {
    return this.running.size;
  }

  /** Schedule an update of `key` with a snapshot of the messages. */
  schedule(key: ConversationKey, messages: readonly MessageInput[]): void {
    const id = conversationMapKey(key);
    const queued = this.waiting.has(id);
    // A copy of the array: the caller's list may be extended while we wait.
    this.waiting.set(id, { key, messages: messages.slice() });
    if (queued) return;
    const previous = this.chains.get(id) ?? Promise.resolve();
    const task: Promise<void> = previous.then(async () => {
      const next = this.waiting.get(id);
      this.waiting.delete(id);
      if (!next) return;
      try {
        // A fork or another branch rebuilds from this snapshot rather than failing for good.
        await this.store.update(next.key.userId, next.key.conversationId, next.messages, { onPrefixChange: "rebuild" });
      } catch (error) {
        try {
          this.onError(error, next.key);
        } catch {
          // Reporting must not break the chain of later updates.
        }
      }
    });
    this.chains.set(id, task);
    this.running.add(task);
    void task.finally(() => {
      this.running.delete(task);
      if (this.chains.get(id) === task) this.chains.delete(id);
    });
  }

  /** Wait until no update is scheduled or running (call before closing the store). */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
