// @contextview/sqlite: evidence and compaction state on SQLite, beside LangGraph's SqliteSaver.

export { SqliteContextStore, type SqliteContextStoreOptions, type CheckpointerWithDatabase } from "./sqlite-context-store.js";
export { sidecarPath, SIDECAR_SUFFIX, STORE_PATH_ENV } from "./sidecar.js";
