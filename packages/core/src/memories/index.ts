export { selectMemories, DEFAULT_MEMORY_OPTIONS, type MemorySelection, type RankedMemory, type SelectMemoriesOptions } from "./select-memories.js";
export { MEMORY_BLOCK_HEADER, memoryLine, renderMemoryBlock } from "./memory-block.js";
export type { MemoryInput, SavedMemory } from "./saved-memory.js";
