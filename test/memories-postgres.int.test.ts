// Saved memories from LangGraph's PostgresStore on the real server, through the node, the wrapper and the middleware.
import { memoryLine } from "../packages/core/src/memories/index.js";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { POSTGRES_URL, describePostgres, dropSchema, freshSchemaName } from "../packages/postgres/test/support/postgres.js";
import { OTHER_USER, RELEVANT, memoryLines, saveMemories, systemSeen, type Integration } from "../packages/langgraph/test/support/memories.js";

// Real servers and graphs on a shared, loaded machine: well above the usual second, never a timing assertion.

describePostgres("memories from PostgresStore", () => {
  let schema: string;
  let store: PostgresStore;
  beforeEach(async () => {
    schema = freshSchemaName();
    store = PostgresStore.fromConnString(POSTGRES_URL, { schema });
    await store.setup();
    await saveMemories(store);
  });
  afterEach(async () => {
    await store.stop();
    await dropSchema(schema);
  });

  it.each(["node", "wrapper", "middleware"] as Integration[])("%s: this user's relevant memory within the budget, never another user's", async (integration) => {
    const system = await systemSeen(integration, store, { memories: true, budget: { memoryBudget: 120 } });
    const lines = memoryLines(system);
    expect(lines[0]).toBe(memoryLine(RELEVANT));
    expect(lines.length).toBeLessThan(22);
    expect(system).not.toContain(OTHER_USER);
  });

  it("finds an old matching memory through the store's text search even when the newest items would not include it", async () => {
    // limit 3: the three newest items of u-1 are fillers and units; the text query reaches the groceries memory.
    const system = await systemSeen("node", store, { memories: { limit: 3 }, budget: { memoryBudget: 1000 } }, "groceries");
    const lines = memoryLines(system);
    expect(lines).toContain(memoryLine(RELEVANT));
    expect(lines).toHaveLength(3);
  });
});
