import { MIGRATIONS, MIGRATIONS_TABLE } from "../src/migrations.js";
import { PostgresContextStore, type PostgresContextStoreOptions } from "@contextview/postgres";
import { POSTGRES_URL, describePostgres, useSchema } from "./support/postgres.js";
import { viewRecordEntry } from "@contextview/test-support";

// Real servers on a shared, loaded machine: well above the usual second, never a timing assertion.

const key = { userId: "user", conversationId: "conv" };

/** A real record of a one-message view of `key`; `system` varies the stored input texts. */
const entry = (n: number, system?: string) => viewRecordEntry(n, key, system);

describePostgres("PostgresContextStore view records", () => {
  const { schema, pool } = useSchema();
  const stores: PostgresContextStore[] = [];
  const open = (options: PostgresContextStoreOptions = {}) => {
    const store = PostgresContextStore.fromConnString(POSTGRES_URL, { schema: schema(), ...options });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.end()));
  });

  it("numbers records per conversation, keeps the newest maxViewRecords across stores, and drops input texts no record names", async () => {
    let store = open({ maxViewRecords: 3 });
    expect((await store.recordView(key, await entry(1, "old system prompt"))).sequence).toBe(1);
    await store.recordView({ ...key, conversationId: "other" }, await entry(1));
    await store.end();
    store = open({ maxViewRecords: 3 });
    for (let n = 2; n <= 5; n++) await store.recordView(key, await entry(n));
    const views = await store.listViews(key);
    expect(views.map((v) => [v.record.sequence, v.record.recordedAt])).toEqual([
      [3, 1_700_000_000_003],
      [4, 1_700_000_000_004],
      [5, 1_700_000_000_005],
    ]);
    expect(Object.values(views[0]?.inputs ?? {}).sort()).toEqual(["Be careful.", '{"content":"earlier: rent 900","id":"ev"}']);
    expect((await store.listViews(key, { limit: 2 })).map((v) => v.record.sequence)).toEqual([4, 5]);
    const { rows } = await pool().query<{ text: string }>(`SELECT text FROM "${schema()}".contextview_view_inputs WHERE conversation_id = $1`, ["conv"]);
    expect(rows.map((row) => row.text)).not.toContain("old system prompt");
    expect((await store.listViews({ ...key, conversationId: "other" })).length).toBe(1);
  });

  it("numbers concurrent recorders of one conversation consecutively", async () => {
    const [a, b] = [open({ maxViewRecords: 10 }), open({ maxViewRecords: 10 })];
    const entries = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => entry(n)));
    const sequences = await Promise.all(entries.map((e, i) => (i % 2 === 0 ? a : b).recordView(key, e).then((r) => r.sequence)));
    expect([...sequences].sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await a.listViews(key)).map((v) => v.record.sequence)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("deletes records and input texts with the conversation; sequences start again; 0 keeps none", async () => {
    const store = open();
    await store.recordView(key, await entry(1));
    await store.recordView(key, await entry(2));
    await store.deleteConversation(key.userId, key.conversationId);
    expect(await store.listViews(key)).toEqual([]);
    const { rows } = await pool().query(`SELECT 1 FROM "${schema()}".contextview_view_inputs`);
    expect(rows).toEqual([]);
    expect((await store.recordView(key, await entry(3))).sequence).toBe(1);
    const none = open({ maxViewRecords: 0 });
    expect((await none.recordView(key, await entry(4))).sequence).toBe(2);
    expect((await none.listViews(key)).map((v) => v.record.sequence)).toEqual([1]);
  });

  it("migrates a database made by the first schema version and refuses malformed entries without writing", async () => {
    const quoted = `"${schema()}"`;
    await pool().query(`CREATE SCHEMA ${quoted}; CREATE TABLE ${quoted}.${MIGRATIONS_TABLE} (v INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now()); ${MIGRATIONS[0]?.(quoted)}`);
    await pool().query(`INSERT INTO ${quoted}.${MIGRATIONS_TABLE} (v) VALUES (0)`);
    const store = open();
    const good = await entry(1);
    await expect(store.recordView(key, { ...good, record: { ...good.record, messages: { ...good.record.messages, hash: "nope" } } })).rejects.toMatchObject({
      code: "INVALID_OPTION",
      details: { field: "entry.record.messages.hash" },
    });
    expect(await store.listViews(key)).toEqual([]);
    expect((await store.recordView(key, good)).sequence).toBe(1);
    expect(() => PostgresContextStore.fromConnString(POSTGRES_URL, { maxViewRecords: -1 })).toThrow("Expected `maxViewRecords` to be a non-negative integer (0 keeps none), got -1");
  });

  it("fails with STORE_ERROR when the database does", async () => {
    const store = open();
    await store.setup();
    await pool().query(`DROP TABLE "${schema()}".contextview_views`);
    await expect(store.recordView(key, await entry(1))).rejects.toMatchObject({ code: "STORE_ERROR", details: { operation: "record a view" } });
    await expect(store.listViews(key)).rejects.toMatchObject({ code: "STORE_ERROR", details: { operation: "list view records" } });
  });
});
