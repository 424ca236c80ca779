// One jest project per package plus the cross-package integration tests in test/.
// ts-jest only transpiles (tsconfig has isolatedModules); `pnpm test` type-checks first.
const transform = {
  "^.+\\.ts$": ["ts-jest", { tsconfig: "<rootDir>/../../tsconfig.json" }],
};
// Sources import siblings as "./x.js" (nodenext); jest resolves them to the .ts files.
const moduleNameMapper = {
  "^@contextview/test-support$": "<rootDir>/../../test/support/shared/index.ts",
  "^@contextview/(core|sqlite|postgres|langgraph|inspect)$": "<rootDir>/../../packages/$1/src/index.ts",
  "^(\\.{1,2}/.*)\\.js$": "$1",
};

const project = (name) => ({
  displayName: name,
  rootDir: `packages/${name}`,
  testEnvironment: "node",
  testMatch: ["<rootDir>/test/**/*.test.ts"],
  transform,
  moduleNameMapper,
});

/** @type {import('jest').Config} */
module.exports = {
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
      rootDir: "test",
      testEnvironment: "node",
      testMatch: ["<rootDir>/**/*.test.ts"],
      transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "<rootDir>/../tsconfig.json" }] },
      moduleNameMapper: {
        "^@contextview/test-support$": "<rootDir>/support/shared/index.ts",
        "^@contextview/(core|sqlite|postgres|langgraph|inspect)$": "<rootDir>/../packages/$1/src/index.ts",
        "^(\\.{1,2}/.*)\\.js$": "$1",
      },
    },
  ],
};
