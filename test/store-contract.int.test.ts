import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryContextStore } from "@contextview/core";
import { PostgresContextStore } from "@contextview/postgres";
import { SqliteContextStore } from "@contextview/sqlite";
import { POSTGRES_URL, describePostgres, dropSchema, freshSchemaName } from "../packages/postgres/test/support/postgres.js";
import { describeStoreContract } from "./support/store-contract.js";

// Real servers and graphs on a shared, loaded machine: well above the usual second, never a timing assertion.

describeStoreContract("InMemoryContextStore", async (options) => {
  const store = new InMemoryContextStore(options);
  return { store, close: async () => undefined };
});

describeStoreContract("SqliteContextStore", async (options) => {
  const dir = mkdtempSync(join(tmpdir(), "contextview-contract-"));
  const file = join(dir, "store.sqlite");
  const opened = [SqliteContextStore.fromConnString(file, options)];
  return {
    store: opened[0] as SqliteContextStore,
    reopen: () => {
      const store = SqliteContextStore.fromConnString(file, options);
      opened.push(store);
      return store;
    },
    close: async () => {
      for (const store of opened) store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describeStoreContract(
  "PostgresContextStore",
  async (options) => {
    const schema = freshSchemaName();
    const opened = [PostgresContextStore.fromConnString(POSTGRES_URL, { ...options, schema })];
    return {
      store: opened[0] as PostgresContextStore,
      reopen: () => {
        const store = PostgresContextStore.fromConnString(POSTGRES_URL, { ...options, schema });
        opened.push(store);
        return store;
      },
      close: async () => {
        await Promise.all(opened.map((store) => store.end()));
        await dropSchema(schema);
      },
    };
  },
  describePostgres,
);
