import { InMemoryContextStore } from "@contextview/core";
import { deleteConversation } from "@contextview/langgraph";
import { searchConversation } from "@contextview/test-support";

describe("deleteConversation", () => {
  it("deletes the context state first, then the thread", async () => {
    const order: string[] = [];
    const store = new InMemoryContextStore();
    await store.update("u-1", "t-1", searchConversation(3));
    await store.update("u-2", "t-1", searchConversation(3));
    const original = store.deleteConversation.bind(store);
    jest.spyOn(store, "deleteConversation").mockImplementation(async (user, thread) => {
      order.push("store");
      return original(user, thread);
    });
    const checkpointer = { deleteThread: jest.fn(async () => void order.push("checkpoints")) };
    await deleteConversation({ checkpointer, store }, { userId: "u-1", threadId: "t-1" });
    expect(order).toEqual(["store", "checkpoints"]);
    expect(checkpointer.deleteThread).toHaveBeenCalledWith("t-1");
    expect((await store.load("u-1", "t-1")).cursor).toBe(0);
    expect((await store.load("u-2", "t-1")).cursor).toBeGreaterThan(0);
  });

  it.each([
    [{ checkpointer: {}, store: new InMemoryContextStore() }, { userId: "u", threadId: "t" }, "checkpointer"],
    [{ checkpointer: { deleteThread: async () => undefined }, store: {} }, { userId: "u", threadId: "t" }, "store"],
    [{ checkpointer: { deleteThread: async () => undefined }, store: new InMemoryContextStore() }, { userId: "", threadId: "t" }, "userId"],
  ])("names the wrong argument (%#)", async (targets, conversationKey, field) => {
    await expect(deleteConversation(targets as never, conversationKey)).rejects.toMatchObject({ code: "INVALID_OPTION", field });
  });
});
