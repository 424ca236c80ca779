// Packs every packages/* as a user installs it, into one folder: `pnpm pack:all` builds, then
// runs this (default folder: packs/ of the repository; `--out <dir>` for another). Until the
// packages are on the npm registry, these tarballs are how a project gets them (README.md,
// "Install"). Each tarball is named after its package without the version
// (`contextview-langgraph.tgz`), so the README's install line holds from one release to the next.
// scripts/consumer-test.mjs installs the same tarballs into scratch projects.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = new URL("..", import.meta.url).pathname;

/** Every publishable package of the workspace: its folder, name and version. */
export function workspacePackages() {
  return readdirSync(join(root, "packages"))
    .map((name) => join(root, "packages", name))
    .filter((dir) => existsSync(join(dir, "package.json")))
    .map((dir) => ({ dir, ...JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
    .map(({ dir, name, version }) => ({ dir, name, version }));
}

/** `@contextview/langgraph` → `contextview-langgraph.tgz`. */
export const tarballName = (name) => `${name.replace("@", "").replace("/", "-")}.tgz`;

function pnpmPack(dir, destination) {
  return new Promise((resolvePack, reject) => {
    const child = spawn("pnpm", ["pack", "--pack-destination", destination], { cwd: dir, env: { ...process.env, FORCE_COLOR: "0" } });
    let out = "";
    child.stdout.on("data", (data) => (out += data));
    child.stderr.on("data", (data) => (out += data));
    child.on("exit", (code) => (code === 0 ? resolvePack() : reject(new Error(`pnpm pack failed in ${dir} (exit ${code})\n${out}`))));
  });
}

/**
 * Packs every package into `destination` (created; earlier tarballs of ours replaced).
 * `pnpm pack` turns the `workspace:^` ranges between our packages into the versions packed
 * (`npm pack` would leave them, and installing such a tarball fails with EUNSUPPORTEDPROTOCOL).
 * @returns each package's name, version and tarball path
 */
export async function packAll(destination) {
  const packages = workspacePackages();
  for (const { dir } of packages) {
    if (!existsSync(join(dir, "dist/esm")) || !existsSync(join(dir, "dist/cjs"))) throw new Error(`${relative(root, dir)} is not built: run pnpm build first`);
  }
  mkdirSync(destination, { recursive: true });
  for (const { name } of packages) rmSync(join(destination, tarballName(name)), { force: true });
  await Promise.all(packages.map(({ dir }) => pnpmPack(dir, destination)));
  return packages.map(({ name, version }) => {
    const tarball = join(destination, tarballName(name));
    renameSync(join(destination, tarballName(name).replace(/\.tgz$/, `-${version}.tgz`)), tarball);
    return { name, version, tarball };
  });
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const at = process.argv.indexOf("--out");
  const destination = resolve(at === -1 ? join(root, "packs") : process.argv[at + 1]);
  const packed = await packAll(destination);
  console.log(`Packed ${packed.length} packages into ${destination}:`);
  for (const { name, version, tarball } of packed) console.log(`  ${`${name}@${version}`.padEnd(30)} ${relative(process.cwd(), tarball)}`);
  console.log("Install them in your project with npm install <path to each .tgz> (README.md, \"Install\").");
}
