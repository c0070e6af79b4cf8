#!/usr/bin/env node
// Packs dist/ (GoReleaser's output) into npm tarballs in dist/npm/: one
// package per platform holding hook-loop and hook-loop-hook, and the
// hook-loop package whose launcher runs the one for this platform.
// Usage: node npm/pack.js DIST   (run by scripts/release.sh)
"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");

const dist = path.resolve(process.argv[2] || "dist");
const here = __dirname;
const meta = JSON.parse(fs.readFileSync(path.join(dist, "metadata.json"), "utf8"));
const artifacts = JSON.parse(fs.readFileSync(path.join(dist, "artifacts.json"), "utf8"));
const version = meta.version;
const npmOS = { linux: "linux", darwin: "darwin", windows: "win32" };
const npmCPU = { amd64: "x64", arm64: "arm64" };
const common = {
  version,
  description: "Gate coding agents with a JSON state machine, through their hooks",
  homepage: "https://github.com/hook-loop/hook-loop",
  repository: { type: "git", url: "git+https://github.com/hook-loop/hook-loop.git" },
};

const out = path.join(dist, "npm");
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

function pack(dir) {
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], { cwd: dir, encoding: "utf8" });
  console.log(`packed dist/npm/${name.trim()}`);
}

// Group the built binaries by platform.
const platforms = new Map();
for (const a of artifacts) {
  if (a.type !== "Binary" || !npmOS[a.goos] || !npmCPU[a.goarch]) continue;
  const key = `${npmOS[a.goos]}-${npmCPU[a.goarch]}`;
  if (!platforms.has(key)) platforms.set(key, { os: npmOS[a.goos], cpu: npmCPU[a.goarch], bins: [] });
  platforms.get(key).bins.push(path.resolve(a.path));
}
if (platforms.size === 0) throw new Error(`no binaries in ${dist}/artifacts.json`);

const optional = {};
for (const [key, p] of [...platforms].sort()) {
  const name = `hook-loop-${key}`;
  const dir = path.join(out, "build", name);
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  for (const b of p.bins) {
    fs.copyFileSync(b, path.join(dir, "bin", path.basename(b)));
    fs.chmodSync(path.join(dir, "bin", path.basename(b)), 0o755);
  }
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({
    name, ...common, description: `hook-loop's binaries for ${key} (installed by the hook-loop package)`,
    os: [p.os], cpu: [p.cpu], files: ["bin/"],
  }, null, 2) + "\n");
  fs.writeFileSync(path.join(dir, "README.md"), `# ${name}\n\nThe \`hook-loop\` and \`hook-loop-hook\` binaries for ${key}. Install \`hook-loop\`, not this package: it picks the right one.\n`);
  pack(dir);
  optional[name] = version;
}

const dir = path.join(out, "build", "hook-loop");
fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
fs.copyFileSync(path.join(here, "hook-loop", "bin", "hook-loop.js"), path.join(dir, "bin", "hook-loop.js"));
fs.chmodSync(path.join(dir, "bin", "hook-loop.js"), 0o755);
fs.copyFileSync(path.join(here, "..", "README.md"), path.join(dir, "README.md"));
fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({
  name: "hook-loop", ...common,
  bin: { "hook-loop": "bin/hook-loop.js" },
  files: ["bin/"],
  optionalDependencies: optional,
  engines: { node: ">=16" },
}, null, 2) + "\n");
pack(dir);
fs.rmSync(path.join(out, "build"), { recursive: true, force: true });
