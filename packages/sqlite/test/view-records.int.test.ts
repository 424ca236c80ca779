import { join } from "node:path";
import Database from "better-sqlite3";
import { MIGRATIONS, MIGRATIONS_TABLE } from "../src/migrations.js";
import { SqliteContextStore } from "@contextview/sqlite";
import { useTempDir } from "./support/temp.js";
import { viewRecordEntry } from "@contextview/test-support";

const key = { userId: "user", conversationId: "conv" };

/** A real record of a one-message view of `key`; `system` varies the stored input texts. */
const entry = (n: number, system?: string) => viewRecordEntry(n, key, system);

describe("SqliteContextStore view records", () => {
  const tempDir = useTempDir();

  it("numbers records per conversation, keeps the newest maxViewRecords across reopenings, and drops input texts no record names", async () => {
    const file = join(tempDir(), "store.sqlite");
    let store = SqliteContextStore.fromConnString(file, { maxViewRecords: 3 });
    expect((await store.recordView(key, await entry(1, "old system prompt"))).sequence).toBe(1);
    await store.recordView({ ...key, conversationId: "other" }, await entry(1));
    store.close();
    store = SqliteContextStore.fromConnString(file, { maxViewRecords: 3 });
    for (let n = 2; n <= 5; n++) await store.recordView(key, await entry(n));
    const views = await store.listViews(key);
    expect(views.map((v) => [v.record.sequence, v.record.recordedAt])).toEqual([
      [3, 1_700_000_000_003],
      [4, 1_700_000_000_004],
      [5, 1_700_000_000_005],
    ]);
    expect(Object.values(views[0]?.inputs ?? {}).sort()).toEqual(["Be careful.", '{"content":"earlier: rent 900","id":"ev"}']);
    expect((await store.listViews(key, { limit: 2 })).map((v) => v.record.sequence)).toEqual([4, 5]);
    const db = new Database(file, { readonly: true });
    const texts = db.prepare("SELECT text FROM contextview_view_inputs WHERE conversation_id = 'conv'").pluck().all();
    db.close();
    expect(texts).not.toContain("old system prompt");
    expect((await store.listViews({ ...key, conversationId: "other" })).length).toBe(1);
    store.close();
  });

  it("deletes records and input texts with the conversation; sequences start again", async () => {
    const store = SqliteContextStore.fromConnString(join(tempDir(), "store.sqlite"));
    await store.recordView(key, await entry(1));
    await store.recordView(key, await entry(2));
    await store.deleteConversation(key.userId, key.conversationId);
    expect(await store.listViews(key)).toEqual([]);
    expect((await store.recordView(key, await entry(3))).sequence).toBe(1);
    store.close();
  });

  it("migrates a database made by the first schema version and refuses malformed entries without writing", async () => {
    const file = join(tempDir(), "old.sqlite");
    const db = new Database(file);
    db.exec(`CREATE TABLE ${MIGRATIONS_TABLE} (v INTEGER PRIMARY KEY)`);
    db.exec(MIGRATIONS[0] as string);
    db.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (v) VALUES (0)`).run();
    db.close();
    const store = SqliteContextStore.fromConnString(file);
    const good = await entry(1);
    await expect(store.recordView(key, { ...good, record: { ...good.record, messages: { ...good.record.messages, hash: "nope" } } })).rejects.toMatchObject({
      code: "INVALID_OPTION",
      details: { field: "entry.record.messages.hash" },
    });
    expect(await store.listViews(key)).toEqual([]);
    expect((await store.recordView(key, good)).sequence).toBe(1);
    expect(() => SqliteContextStore.fromConnString(file, { maxViewRecords: -1 })).toThrow("Expected `maxViewRecords` to be a non-negative integer (0 keeps none), got -1");
    store.close();
  });
});
