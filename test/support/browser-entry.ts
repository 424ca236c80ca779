// Bundled by esbuild for the browser in core-browser.int.test.ts: runs the scenario and
// leaves its result, and which Node globals exist, on globalThis.
import { browserScenario } from "./browser-scenario.js";

(globalThis as { contextviewResult?: Promise<unknown> }).contextviewResult = browserScenario().then((result) => ({
  ...result,
  nodeGlobals: ["process", "Buffer", "setImmediate", "require"].filter((name) => name in globalThis),
  userAgent: (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent ?? "",
}));
