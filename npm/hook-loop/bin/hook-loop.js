#!/usr/bin/env node
// Runs the native hook-loop from this platform's package (an optional
// dependency: npm installs only the one whose os and cpu match). Nothing is
// downloaded at install time, and installs write the native binary's own path
// into the harnesses' hooks, so no hook goes through Node.
"use strict";
const { spawnSync } = require("child_process");
const path = require("path");

const pkg = `hook-loop-${process.platform}-${process.arch}`;
let bin;
try {
  bin = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin",
    process.platform === "win32" ? "hook-loop.exe" : "hook-loop");
} catch {
  console.error(`hook-loop: ${pkg} is not installed, so there is no hook-loop binary for ${process.platform}-${process.arch}; ` +
    "reinstall without --omit=optional, or use install.sh or go install (see https://github.com/hook-loop/hook-loop#install)");
  process.exit(1);
}
const r = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
if (r.error) {
  console.error(`hook-loop: run ${bin}: ${r.error.message}`);
  process.exit(1);
}
if (r.signal) {
  process.kill(process.pid, r.signal);
}
process.exit(r.status === null ? 1 : r.status);
