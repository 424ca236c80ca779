import { classifyEvidence, EVIDENCE_LIMITS } from "../../src/evidence/index.js";

describe("classifyEvidence", () => {
  it.each([
    ["We must never log card numbers", "constraints"],
    ["Don't use floats for money", "constraints"],
    ["Keep it under budget, at most 200 euros", "constraints"],
    ["Let's go with Postgres", "decisions"],
    ["We decided to ship on Friday", "decisions"],
    ["Use UTC instead of local time", "decisions"],
    ["Next steps: write the migration", "openWork"],
    ["The review is still pending", "openWork"],
    ["TODO: rename the table", "openWork"],
    ["Thanks, that looks great", "recentContext"],
    ["Mustard is a condiment", "recentContext"],
    ["", "recentContext"],
  ])("labels %j as %s", (text, bucket) => {
    expect(classifyEvidence(text).bucket).toBe(bucket);
  });

  it("prefers constraints over decisions over open work", () => {
    expect(classifyEvidence("Next step: we decided we must test").bucket).toBe("constraints");
    expect(classifyEvidence("Next step: we decided to test").bucket).toBe("decisions");
  });

  it("reports where the keyword starts", () => {
    expect(classifyEvidence("Hello there. We must hurry.")).toEqual({ bucket: "constraints", offset: 16 });
  });

  it("reads only the classification window of a long text", () => {
    const text = `${"a ".repeat(EVIDENCE_LIMITS.classifyWindow)}must`;
    expect(classifyEvidence(text).bucket).toBe("recentContext");
  });
});
