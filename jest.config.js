// One jest project per package plus the cross-package integration tests in test/.
// ts-jest only transpiles (tsconfig has isolatedModules); `pnpm test` type-checks first.
const { existsSync, readdirSync, readFileSync } = require("node:fs");
const { join } = require("node:path");

const transform = {
  "^.+\\.ts$": ["ts-jest", { tsconfig: "<rootDir>/../../tsconfig.json" }],
};
/**
 * `@contextview/<pkg>` and each of its subpaths, mapped to the source file its package.json
 * "exports" builds it from (dist/cjs/x.js <- src/x.ts), relative to a project's rootDir.
 */
function packageEntries(fromRootDir) {
  const mapper = {};
  for (const name of readdirSync(join(__dirname, "packages"))) {
    const manifestPath = join(__dirname, "packages", name, "package.json");
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    for (const [key, target] of Object.entries(manifest.exports ?? {})) {
      const built = target?.require?.default;
      if (typeof built !== "string") continue;
      const specifier = key === "." ? manifest.name : `${manifest.name}/${key.slice(2)}`;
      mapper[`^${specifier}$`] = `<rootDir>/${fromRootDir}packages/${name}/${built.replace(/^\.\/dist\/cjs\//, "src/").replace(/\.js$/, ".ts")}`;
    }
  }
  return mapper;
}

// Sources import siblings as "./x.js" (nodenext); jest resolves them to the .ts files.
const moduleNameMapper = {
  "^@contextview/test-support$": "<rootDir>/../../test/support/shared/index.ts",
  ...packageEntries("../../"),
  "^(\\.{1,2}/.*)\\.js$": "$1",
};

// Tests are bounded by their work, never by the clock: a shared, loaded machine runs the same
// work slower (one loaded run took 6× a quiet one), so no test carries a timeout of its own and
// this one only ends a test that hangs.
const testTimeout = 900_000;

// The slowest suites (each 30–100 s of work on this machine): `pnpm test` leaves them out and says so
// in one line; `pnpm test:slow` runs only them, `pnpm test:all` (CI, the README) runs everything.
const SLOW = ["test/evaluation.int", "test/retained-heap.int", "test/long-turn.int", "test/langgraph-prebuilt.int", "test/pinned-context.int", "packages/postgres/test/dropped-connections.int"];
const slowPattern = `(${SLOW.map((path) => path.replace(/[.]/g, "\\.")).join("|")})\\.test\\.ts$`;
const tests = process.env.CONTEXTVIEW_TESTS ?? "fast";
if (!["fast", "slow", "all"].includes(tests)) throw new Error(`CONTEXTVIEW_TESTS must be fast, slow or all, got ${tests}`);
const testPathIgnorePatterns = tests === "fast" ? ["/node_modules/", slowPattern] : tests === "slow" ? ["/node_modules/", `^(?!.*${slowPattern}).*$`] : ["/node_modules/"];

const project = (name) => ({
  displayName: name,
  testTimeout,
  testPathIgnorePatterns,
  rootDir: `packages/${name}`,
  testEnvironment: "node",
  testMatch: ["<rootDir>/test/**/*.test.ts"],
  transform,
  moduleNameMapper,
});

/** @type {import('jest').Config} */
module.exports = {
  testTimeout,
  // Two workers on this 2-core machine: jest's default (cores − 1) runs everything in one
  // process, leaving a core idle while a test waits on a child process, a server or a browser.
  maxWorkers: 2,
  // Probes the PostgreSQL server once: required when CI=true, else its suites are skipped with one line.
  globalSetup: "<rootDir>/test/support/postgres-global-setup.cjs",
  projects: [
    project("core"),
    project("sqlite"),
    project("postgres"),
    project("langgraph"),
    project("inspect"),
    {
      displayName: "integration",
      testTimeout,
      testPathIgnorePatterns,
      rootDir: "test",
      testEnvironment: "node",
      testMatch: ["<rootDir>/**/*.test.ts"],
      transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "<rootDir>/../tsconfig.json" }] },
      moduleNameMapper: {
        "^@contextview/test-support$": "<rootDir>/support/shared/index.ts",
        ...packageEntries("../"),
        "^(\\.{1,2}/.*)\\.js$": "$1",
      },
    },
  ],
};
