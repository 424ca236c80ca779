// An ES-module app and a CommonJS library each load their own copy of @langchain/core:
// two of every class. jest.isolateModules gives this test such a second copy. The checks
// core relies on (isBaseMessage, ToolMessage.isInstance, AIMessage.isInstance) must hold
// across copies; AIMessageChunk.isInstance does not, which is why nothing of ours uses it.
import * as messages from "@langchain/core/messages";
import * as errors from "@langchain/core/errors";
import { buildContext, createEstimator, isContextOverflow } from "@contextview/core";
import { compactToolResult, compactionMarkerOf } from "@contextview/core/tool-results";

type Messages = typeof messages;
let other: Messages;
let otherErrors: typeof errors;
jest.isolateModules(() => {
  other = require("@langchain/core/messages") as Messages;
  otherErrors = require("@langchain/core/errors") as typeof errors;
});

describe("messages from another copy of @langchain/core", () => {
  it("is a second copy: its classes are not ours", () => {
    expect(other.ToolMessage).not.toBe(messages.ToolMessage);
    expect(new other.HumanMessage("hi")).not.toBeInstanceOf(messages.BaseMessageChunk);
  });

  it("isBaseMessage and ToolMessage.isInstance hold across copies", () => {
    const tool = new other.ToolMessage({ content: "x", tool_call_id: "c1" });
    expect(messages.isBaseMessage(tool)).toBe(true);
    expect(messages.isBaseMessage({ type: "tool", content: "x" })).toBe(false);
    expect(messages.ToolMessage.isInstance(tool)).toBe(true);
    expect(messages.ToolMessage.isInstance(new other.HumanMessage("x"))).toBe(false);
  });

  it("AIMessage.isInstance holds across copies and AIMessageChunk.isInstance does not", () => {
    expect(messages.AIMessage.isInstance(new other.AIMessage("x"))).toBe(true);
    expect(messages.AIMessage.isInstance(new other.AIMessageChunk("x"))).toBe(true);
    expect(messages.AIMessageChunk.isInstance(new other.AIMessageChunk("x"))).toBe(false);
  });

  it("compactToolResult compacts a ToolMessage of the other copy", () => {
    const rows = Array.from({ length: 200 }, (_, i) => ({ id: `tx-${i}`, amount: i * 3, memo: `coffee ${i}` }));
    const message = new other.ToolMessage({ content: JSON.stringify({ rows }), artifact: { rows }, tool_call_id: "c1", name: "search" });
    const compact = compactToolResult(message, 1200);
    expect(createEstimator().estimateText(String(compact.content))).toBeLessThanOrEqual(1200);
    expect(compactionMarkerOf(compact)).toMatchObject({ limitTokens: 1200 });
  });

  it("buildContext keeps tool calls with their results when every message is of the other copy", () => {
    const history = [
      new other.SystemMessage("You are a finance assistant."),
      new other.HumanMessage("What did I spend?"),
      new other.AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search", args: { q: "all" } }] }),
      new other.ToolMessage({ content: "120", tool_call_id: "c1", name: "search" }),
      new other.AIMessage("You spent 120."),
      new other.HumanMessage("And rent?"),
    ];
    const { messages: view, report } = buildContext({ messages: history, budget: { contextWindow: 32768, promptBudget: 16000, responseReserve: 4096 } });
    expect(view.map((m) => m.type)).toEqual(["system", "human", "ai", "tool", "ai", "human"]);
    expect(report.messages).toMatchObject({ read: 6, unread: 0, kept: 6, dropped: 0 });
  });

  it("overflow errors are recognized both ways across copies", () => {
    expect(otherErrors.ContextOverflowError).not.toBe(errors.ContextOverflowError);
    expect(isContextOverflow(new otherErrors.ContextOverflowError("prompt is too long"))).toBe(true);
    let budgetError: unknown;
    try {
      buildContext({ messages: [new other.HumanMessage("x".repeat(40_000))], budget: { contextWindow: 4096, promptBudget: 1000, responseReserve: 512 } });
    } catch (error) {
      budgetError = error;
    }
    expect(otherErrors.ContextOverflowError.isInstance(budgetError)).toBe(true);
  });
});
