import { ContextBudgetError, ContextViewBaseError, ContextViewError } from "@contextview/core";
import { ContextIntegrationError } from "@contextview/langgraph";

describe("one error base", () => {
  it("every package's error is a ContextViewBaseError, by class and by mark", () => {
    const core = new ContextViewError("INVALID_OPTION", "x");
    const integration = new ContextIntegrationError("INVALID_STATE", "y");
    const budget = new ContextBudgetError({ limit: 1, required: 2, parts: {} });
    expect(core).toBeInstanceOf(ContextViewBaseError);
    expect(integration).toBeInstanceOf(ContextViewBaseError);
    expect([core, integration, budget].map((error) => ContextViewBaseError.isInstance(error))).toEqual([true, true, true]);
  });

  it("each class keeps its own isInstance, name and code", () => {
    const integration = new ContextIntegrationError("INVALID_STATE", "y", { field: "state.messages" });
    expect(ContextViewError.isInstance(integration)).toBe(false);
    expect(ContextIntegrationError.isInstance(new ContextViewError("INVALID_OPTION", "x"))).toBe(false);
    expect([integration.name, integration.code, integration.field]).toEqual(["ContextIntegrationError", "INVALID_STATE", "state.messages"]);
    expect(new ContextViewError("STORE_ERROR", "z").name).toBe("ContextViewError");
  });

  it("recognises an error of another copy by its Symbol.for mark", () => {
    const foreign = Object.defineProperty(new Error("copy"), Symbol.for("contextview.langgraph.error"), { value: true });
    Object.defineProperty(foreign, Symbol.for("contextview.error.base"), { value: true });
    expect(ContextIntegrationError.isInstance(foreign)).toBe(true);
    expect(ContextViewBaseError.isInstance(foreign)).toBe(true);
    expect(ContextViewBaseError.isInstance(new Error("plain"))).toBe(false);
  });
});
