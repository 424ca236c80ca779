import type Database from "better-sqlite3";
import type { ConversationKey, StoredView, ViewRecord, ViewRecordEntry } from "@contextview/core/store";

/** The view-record statements of one database (see `SqliteContextStore.recordView`). */
export interface ViewRecordStatements {
  /** Numbers, writes and evicts in one `BEGIN IMMEDIATE` transaction; returns the sequence given. */
  record(key: Readonly<ConversationKey>, entry: ViewRecordEntry): number;
  /** Oldest first; the newest `limit` when given. */
  list(key: Readonly<ConversationKey>, limit: number | undefined): StoredView[];
  /** Deletes the records and inputs of a conversation (inside the caller's transaction). */
  remove(key: Readonly<ConversationKey>): void;
}

const WHERE = "WHERE user_id = ? AND conversation_id = ?";

/**
 * Prepares the statements of the `contextview_views` and `contextview_view_inputs`
 * tables (migration v1). At most `max` records are kept per conversation.
 */
export function prepareViewRecords(db: Database.Database, max: number): ViewRecordStatements {
  const lastSequence = db.prepare<[string, string], { sequence: number | null }>(`SELECT MAX(sequence) AS sequence FROM contextview_views ${WHERE}`);
  const insertView = db.prepare<[string, string, number, string, string, number]>(
    `INSERT INTO contextview_views (user_id, conversation_id, sequence, record, input_hashes, recorded_at) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const insertInput = db.prepare<[string, string, string, string]>(
    `INSERT INTO contextview_view_inputs (user_id, conversation_id, hash, text) VALUES (?, ?, ?, ?) ON CONFLICT (user_id, conversation_id, hash) DO NOTHING`,
  );
  const evictViews = db.prepare<[string, string, number]>(`DELETE FROM contextview_views ${WHERE} AND sequence <= ?`);
  // Hashes are fixed-length hex, so finding one in the space-separated list of a record is exact.
  const evictInputs = db.prepare<[string, string]>(
    `DELETE FROM contextview_view_inputs AS i ${WHERE}
     AND NOT EXISTS (SELECT 1 FROM contextview_views AS v
       WHERE v.user_id = i.user_id AND v.conversation_id = i.conversation_id AND instr(v.input_hashes, i.hash) > 0)`,
  );
  const listViews = db.prepare<[string, string, number], { record: string; input_hashes: string }>(
    `SELECT record, input_hashes FROM contextview_views ${WHERE} ORDER BY sequence DESC LIMIT ?`,
  );
  const listInputs = db.prepare<[string, string], { hash: string; text: string }>(`SELECT hash, text FROM contextview_view_inputs ${WHERE}`);
  const deleteViews = db.prepare<[string, string]>(`DELETE FROM contextview_views ${WHERE}`);
  const deleteInputs = db.prepare<[string, string]>(`DELETE FROM contextview_view_inputs ${WHERE}`);

  const record = db.transaction((key: Readonly<ConversationKey>, entry: ViewRecordEntry): number => {
    const sequence = (lastSequence.get(key.userId, key.conversationId)?.sequence ?? 0) + 1;
    if (max === 0) return sequence;
    const hashes = Object.values(entry.record.inputs).filter((hash): hash is string => hash !== null);
    insertView.run(key.userId, key.conversationId, sequence, JSON.stringify({ ...entry.record, sequence }), hashes.join(" "), entry.record.recordedAt);
    for (const [hash, text] of Object.entries(entry.inputs)) insertInput.run(key.userId, key.conversationId, hash, text);
    if (evictViews.run(key.userId, key.conversationId, sequence - max).changes > 0) evictInputs.run(key.userId, key.conversationId);
    return sequence;
  });

  return {
    record: (key, entry) => record.immediate(key, entry),
    list(key, limit) {
      const rows = listViews.all(key.userId, key.conversationId, limit ?? -1).reverse();
      if (rows.length === 0) return [];
      const texts = new Map(listInputs.all(key.userId, key.conversationId).map((row) => [row.hash, row.text]));
      return rows.map((row) => {
        const inputs: Record<string, string> = {};
        for (const hash of row.input_hashes.split(" ")) {
          const text = texts.get(hash);
          if (text !== undefined) inputs[hash] = text;
        }
        return { record: JSON.parse(row.record) as ViewRecord, inputs };
      });
    },
    remove(key) {
      deleteViews.run(key.userId, key.conversationId);
      deleteInputs.run(key.userId, key.conversationId);
    },
  };
}
