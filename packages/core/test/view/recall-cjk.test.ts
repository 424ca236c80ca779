import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext } from "@contextview/core";
import { RECALL_LABEL } from "../../src/view/recall.js";

const budget = { contextWindow: 32768, responseReserve: 4096, promptBudget: 4000 };
const SMALL_TALK = ["今天天气很好，我们去公园散步了。", "昨天晚上我做了番茄意大利面。", "工作有点忙，开了很多会议。", "周末我们看了一部很长的电影。"];

/** 300 turns of Chinese small talk, a fact at turn 3, then a question about it in other words around the same ones. */
function chineseChat(): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < 300; i++) {
    const user = i === 3 ? "我们去年领养了一只小猎犬，我的狗叫饼干，它最喜欢去公园。" : `第${i}天：${SMALL_TALK[i % SMALL_TALK.length]}`;
    out.push(new HumanMessage({ id: `u${i}`, content: user }), new AIMessage({ id: `a${i}`, content: `听起来不错。再多说说你这周的事情吧（${i}）。` }));
  }
  out.push(new HumanMessage({ id: "q", content: "我的狗叫什么名字？" }));
  return out;
}

describe("recall in a conversation written without spaces", () => {
  it("brings a Chinese fact from turn 3 of 300 back into a 4,000-token view", () => {
    const view = buildContext({ messages: chineseChat(), budget });
    // Turn 3 is far outside the newest turns the view keeps.
    expect(view.report.messages.dropped).toBeGreaterThan(0);
    expect(view.messages.some((m) => m.id === "u3")).toBe(false);
    expect(view.report.recall.outcome).toBe("recalled");
    const block = String(view.messages[view.messages.findIndex((m) => m.content === RECALL_LABEL) + 1]?.content);
    expect(block).toContain("[#6 · user · id u3] 我们去年领养了一只小猎犬，我的狗叫饼干");
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
  });
});
