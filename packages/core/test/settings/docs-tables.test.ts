import { readFileSync } from "node:fs";
import { join } from "node:path";
import { markedTables, SETTINGS_DOCS, withSettingsTables } from "../../../../scripts/settings-docs";

const root = join(__dirname, "../../../..");
const read = (doc: string) => readFileSync(join(root, doc), "utf8");

describe("the settings tables of the docs", () => {
  it.each(SETTINGS_DOCS)("%s agrees with SETTINGS_SPEC (else run `pnpm docs:settings`)", (doc) => {
    const text = read(doc);
    expect(text).toBe(withSettingsTables(text));
  });

  it("marks the budget, view, estimator and summarizing tables of configuration.md and the per-request table of langgraph.md", () => {
    expect(markedTables(read("docs/configuration.md"))).toEqual(["budget", "view", "estimator", "summarize"]);
    expect(markedTables(read("docs/langgraph.md"))).toEqual(["request"]);
  });

  it("notices a default edited in a doc by hand", () => {
    const text = read("docs/langgraph.md").replace("| 40% of the prompt limit (6400 by default) |", "| 6000 |");
    expect(withSettingsTables(text)).not.toBe(text);
  });
});
