import { createContextManager, type ContextManager, type ContextManagerOptions, type ContextStore } from "@contextview/core";
import { EvidenceState } from "@contextview/core/store";

/**
 * A store that keeps nothing: every read finds no state and every write is dropped.
 * Requests without a thread id have no key to keep state under.
 */
const keepsNothing: ContextStore = Object.freeze({
  update: async () => EvidenceState.empty(),
  load: async () => EvidenceState.empty(),
  getCompaction: async () => null,
  putCompaction: async () => undefined,
  deleteCompaction: async () => undefined,
  deleteConversation: async () => undefined,
  toJSON: () => ({ store: "stateless" }),
});

/**
 * The manager of stateless requests (no thread id): the factory's options over a
 * store that keeps nothing, so no summary cache, failure count or calibration is read or
 * written, and without `writeBack` (there is no checkpoint of a thread to write to).
 *
 * @example
 * ```ts
 * const manager = statelessManagerOf({ ...managerOptions, store });
 * await manager.build({ messages, key: { userId: NO_USER_ID, conversationId: NO_THREAD_ID }, overrides: { summarize: false } });
 * ```
 */
export function statelessManagerOf(options: ContextManagerOptions): ContextManager {
  const { writeBack: _writeBack, ...rest } = options;
  return createContextManager({ ...rest, store: keepsNothing });
}
