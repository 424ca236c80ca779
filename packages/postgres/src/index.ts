// @contextview/postgres: evidence and compaction state on PostgreSQL, beside LangGraph's PostgresSaver.

export { PostgresContextStore, type PostgresContextStoreOptions } from "./postgres-context-store.js";
