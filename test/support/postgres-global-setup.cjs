// Jest global set-up: says when the slow suites are left out, then: is the PostgreSQL server of POSTGRES_URL reachable? Probed once per run.
// CI=true: the server is required, so a missing one fails the run here.
// Elsewhere: the PostgreSQL suites are skipped, and this prints the one line saying how to run them.
const pg = require("pg");

const DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test";

module.exports = async function postgresGlobalSetup() {
  if ((process.env.CONTEXTVIEW_TESTS ?? "fast") === "fast") {
    console.log("\nThe six slowest suites are left out (jest.config.js, SLOW): `pnpm test:slow` runs them, `pnpm test:all` runs everything.");
  }
  const url = process.env.POSTGRES_URL || DEFAULT_URL;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  let problem;
  try {
    await client.connect();
    await client.query("SELECT 1");
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
  if (problem === undefined) {
    process.env.CONTEXTVIEW_POSTGRES = "reachable";
    return;
  }
  if (process.env.CI === "true") {
    throw new Error(`PostgreSQL is required when CI=true, but ${url} is not reachable: ${problem}`);
  }
  process.env.CONTEXTVIEW_POSTGRES = "unreachable";
  console.log(`\nPostgreSQL tests skipped: no server at ${url} (${problem}); start PostgreSQL 15 there or set POSTGRES_URL, then run \`pnpm test\` (CI=true makes them required).`);
};
