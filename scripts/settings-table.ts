// Rewrites the settings tables of the docs from core's SETTINGS_SPEC (see settings-docs.ts).
//   pnpm docs:settings            rewrite the tables in place
//   pnpm docs:settings --check    exit 1, naming the doc, when a table is out of date
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SETTINGS_DOCS, withSettingsTables } from "./settings-docs.js";

const root = join(__dirname, "..");
const check = process.argv.includes("--check");
let stale = 0;
for (const doc of SETTINGS_DOCS) {
  const path = join(root, doc);
  const before = readFileSync(path, "utf8");
  const after = withSettingsTables(before);
  if (after === before) continue;
  stale++;
  if (check) console.error(`${doc}: settings tables differ from SETTINGS_SPEC; run pnpm docs:settings`);
  else {
    writeFileSync(path, after);
    console.log(`${doc}: settings tables rewritten`);
  }
}
if (check && stale > 0) process.exit(1);
