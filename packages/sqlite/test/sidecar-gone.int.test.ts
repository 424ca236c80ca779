import { renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { ContextViewError } from "@contextview/core";
import { SqliteContextStore } from "@contextview/sqlite";
import { cursorOf, storeHistory, viewRecordEntry } from "@contextview/test-support";
import { useTempDir } from "./support/temp.js";

const key = { userId: "u", conversationId: "c" };

/** What a failed call gave: its code and the details that say why. */
async function failure(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => "resolved",
    (error: ContextViewError) => ({ code: error.code, ...(error.details as object) }),
  );
}

describe("SqliteContextStore whose file goes away while it runs", () => {
  const dir = useTempDir();

  /** A store beside a SqliteSaver, with one update and one view record written. */
  async function openedStore(reported: ContextViewError[] = []) {
    const saver = SqliteSaver.fromConnString(join(dir(), "checkpoints.sqlite"));
    const store = SqliteContextStore.nextTo(saver, { onCompactionError: (error) => reported.push(error) });
    await store.update(key.userId, key.conversationId, storeHistory(2));
    await store.recordView(key, await viewRecordEntry(1, key));
    return { store, saver, file: store.file, close: () => (store.close(), (saver as unknown as { db: Database.Database }).db.close()) };
  }

  it("fails every call with STORE_ERROR once the sidecar is deleted, instead of writing into the deleted file", async () => {
    const reported: ContextViewError[] = [];
    const { store, file, close } = await openedStore(reported);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
    try {
      const gone = { code: "STORE_ERROR", file, reason: "deleted" };
      expect(await failure(store.update(key.userId, key.conversationId, storeHistory(4)))).toEqual({ ...gone, operation: "read evidence" });
      expect(await failure(store.load(key.userId, key.conversationId))).toEqual({ ...gone, operation: "read evidence" });
      expect(await failure(store.recordView(key, await viewRecordEntry(2, key)))).toEqual({ ...gone, operation: "record a view" });
      expect(await failure(store.listViews(key))).toEqual({ ...gone, operation: "list view records" });
      expect(await failure(store.deleteConversation(key.userId, key.conversationId))).toEqual({ ...gone, operation: "delete the conversation" });
      // The compaction path behaves as "no cache" and reports it.
      expect(await store.getCompaction(key)).toBeNull();
      expect(reported.map((error) => [error.code, (error.details as { reason?: unknown }).reason])).toEqual([["STORE_ERROR", "deleted"]]);
    } finally {
      close();
    }
  });

  it("fails with STORE_ERROR (replaced) when another file now sits at the path (a restore from a backup, a copy)", async () => {
    const { store, file, close } = await openedStore();
    const other = join(dir(), "other.sqlite");
    const db = new Database(other);
    db.exec("CREATE TABLE t (x INTEGER)");
    db.close();
    renameSync(other, file);
    try {
      expect(await failure(store.update(key.userId, key.conversationId, storeHistory(4)))).toEqual({
        code: "STORE_ERROR",
        operation: "read evidence",
        file,
        reason: "replaced",
      });
      expect(await failure(store.recordView(key, await viewRecordEntry(2, key)))).toMatchObject({ code: "STORE_ERROR", reason: "replaced" });
    } finally {
      close();
    }
  });

  it("keeps working while the file stays, and a store opened again starts on the file now at the path", async () => {
    const { store, file, close } = await openedStore();
    expect((await store.update(key.userId, key.conversationId, storeHistory(4))).cursor).toBe(cursorOf(4));
    close();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
    const reopened = SqliteContextStore.fromConnString(file);
    try {
      expect((await reopened.load(key.userId, key.conversationId)).cursor).toBe(0);
      expect((await reopened.update(key.userId, key.conversationId, storeHistory(2))).cursor).toBe(cursorOf(2));
    } finally {
      reopened.close();
    }
  });
});
