export { VIEW_RECORD_VERSION, type ViewRecord, type ViewRecordEntry, type ViewInputHashes, type StoredView, type ListViewsOptions } from "./types.js";
export { prepareViewRecord, viewRecordOf, type ViewRecordContext } from "./make-record.js";
export { rebuildView, recordedMessagesMatch, reportDifferences, type RebuiltView, type RebuildViewOptions } from "./rebuild.js";
export { parseViewRecordEntry, resolveMaxViewRecords, DEFAULT_MAX_VIEW_RECORDS } from "./parse.js";
