#!/usr/bin/env node
// The `contextview` bin: `contextview inspect --checkpoints data/checkpoints.sqlite --thread t-1 --out report.html`.
import { runInspectCli } from "./run-cli.js";

void runInspectCli(process.argv.slice(2), undefined, (server, sources) => {
  const stop = () => {
    void server.close().then(() => sources.close());
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}).then((code) => {
  process.exitCode = code;
});
