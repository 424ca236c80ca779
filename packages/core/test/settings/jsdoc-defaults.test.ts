import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SETTINGS_SPEC, type SettingName, type SettingSpec } from "@contextview/core/internal";

// The option interfaces keep their own JSDoc, which editors show; this reads it from the
// source on purpose, so an `@default` there cannot drift from the spec.
const SOURCES = ["view/types.ts", "manager/types.ts", "budget.ts", "compact/options.ts", "summarize/safe-cut.ts", "estimators/types.ts"];
/** `findSafeCut` has defaults of its own for the keep sizes; the manager's are the spec's. */
const OWN_DEFAULT = /in findSafeCut/;
const src = join(__dirname, "../../src");

function documentedDefaults(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of SOURCES) {
    const text = readFileSync(join(src, file), "utf8");
    for (const match of text.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*(?:readonly\s+)?(\w+)\??:/g)) {
      const tag = /@default\s+([^\n]*)/.exec(match[1] as string)?.[1]?.trim();
      const field = match[2] as string;
      if (tag === undefined || OWN_DEFAULT.test(tag) || !(field in SETTINGS_SPEC)) continue;
      found.set(field, [...(found.get(field) ?? []), tag]);
    }
  }
  return found;
}

function expectedStart(spec: SettingSpec): string {
  const value = spec.default;
  return typeof value === "object" ? `${Math.round(value.shareOfPromptLimit * 100)}% of the prompt limit` : String(value);
}

const documented = documentedDefaults();

describe("the @default of every setting's JSDoc", () => {
  it.each(Object.keys(SETTINGS_SPEC) as SettingName[])("%s: documented, and equal to SETTINGS_SPEC", (field) => {
    const tags = documented.get(field);
    expect(tags).toBeDefined();
    for (const tag of tags ?? []) expect(tag.replace(/(\d)_(\d)/g, "$1$2").startsWith(expectedStart(SETTINGS_SPEC[field]))).toBe(true);
  });
});
