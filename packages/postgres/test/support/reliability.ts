/** One conversation of the reliability run and the turn counts of its successive updates. */
export interface ReliabilityConversation {
  conversationId: string;
  turns: number[];
}

/**
 * The conversations of worker indices `workers` in the reliability run, `conversations`
 * each, with `steps` updates of a history that grows by two turns each time (offset
 * per conversation, so that states differ). The test and its children share it, so a
 * run split over processes and a single-process run do the same work.
 */
export function reliabilityConversations(workers: readonly number[], conversations: number, steps: number): ReliabilityConversation[] {
  return workers.flatMap((worker) =>
    Array.from({ length: conversations }, (_, c) => ({
      conversationId: `w${worker}-c${c}`,
      turns: Array.from({ length: steps }, (_, step) => 2 * (step + 1) + (c % 3)),
    })),
  );
}
