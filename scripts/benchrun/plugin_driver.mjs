// Drives the generated opencode plugin or pi extension as its host would, at a
// given host RSS, and times one tool call (before + after) per mode, interleaved:
//   oneshot  -- HOOK_LOOP_COPROC=0: a hook-loop process per event (the old path)
//   coproc   -- one `hook-loop serve --stdio` co-process per host
//   hello    -- one spawn of the Go hello-world from this process (the budget)
//   true     -- one spawn of /bin/true from this process (any process at all)
// argv: harness plugin-file project-dir hello-bin rss-MiB runs warmup [jiti]
// Prints one JSON line: {harness, rss_mib, modes: {mode: [ms...]}}.
import { copyFileSync } from "node:fs"
import { spawn, spawnSync } from "node:child_process"
import { pathToFileURL } from "node:url"

const [harness, plugin, project, hello, rssArg, runsArg, warmupArg, jitiPath] = process.argv.slice(2)
const runs = Number(runsArg)
const warmup = Number(warmupArg)

// The host's memory: a touched Buffer, so fork must copy its page tables.
let ballast = null
const want = Number(rssArg) * 1024 * 1024
const have = process.memoryUsage().rss
if (want > have + 8 * 1024 * 1024) {
  ballast = Buffer.allocUnsafe(want - have)
  ballast.fill(7)
}

// Each mode gets its own copy of the file, so its module state (and its
// HOOK_LOOP_COPROC, read at load) is its own.
const load = async (mode) => {
  const ext = harness === "pi" ? ".ts" : ".mjs"
  const file = plugin.replace(/\.[^.]+$/, "") + "-" + mode + ext
  copyFileSync(plugin, file)
  if (mode === "oneshot") process.env.HOOK_LOOP_COPROC = "0"
  else delete process.env.HOOK_LOOP_COPROC
  if (harness === "pi") {
    const { createJiti } = await import(pathToFileURL(jitiPath).href)
    const f = await createJiti(import.meta.url).import(file, { default: true })
    const h = {}
    f({ on: (n, fn) => (h[n] = fn), sendUserMessage() {} })
    const ctx = { cwd: project, hasUI: false, sessionManager: { getSessionId: () => "bench" } }
    return async (i) => {
      h.tool_call({ type: "tool_call", toolName: "bash", toolCallId: "c" + i, input: { command: "ls" } }, ctx)
      h.tool_result({ type: "tool_result", toolName: "bash", toolCallId: "c" + i, input: { command: "ls" }, content: [{ type: "text", text: "a\n" }], isError: false }, ctx)
    }
  }
  const { HookLoopPlugin } = await import(pathToFileURL(file).href)
  const hooks = await HookLoopPlugin({ directory: project, worktree: project, client: {} })
  return async (i) => {
    const input = { tool: "bash", sessionID: "bench", callID: "c" + i }
    try {
      await hooks["tool.execute.before"](input, { args: { command: "ls" } })
    } catch {}
    await hooks["tool.execute.after"](input, { title: "ls", output: "a\n", metadata: { exit: 0 } })
  }
}

// The hello-world spawn: async for opencode (the plugin spawns async), sync for
// pi (the extension blocks), the way each one-shot hook is started.
const spawnOnce = (bin) =>
  harness === "pi"
    ? async () => {
        spawnSync(bin, [], { input: "{}", encoding: "utf8" })
      }
    : () =>
        new Promise((resolve) => {
          const c = spawn(bin, [], { stdio: ["pipe", "pipe", "pipe"] })
          c.stdout.on("data", () => {})
          c.stdin.on("error", () => {})
          c.on("close", resolve)
          c.stdin.end("{}")
        })

// The co-process first: in blocks, it is timed before this host has spawned
// anything but its co-process.
const all = { coproc: () => load("coproc"), hello: () => spawnOnce(hello), true: () => spawnOnce("/bin/true"), oneshot: () => load("oneshot") }
// BENCH_MODES picks modes (comma-separated; default all of them).
const modes = {}
for (const m of (process.env.BENCH_MODES || Object.keys(all).join(",")).split(",")) modes[m] = await all[m]()
const times = Object.fromEntries(Object.keys(modes).map((m) => [m, []]))
const once = async (m, i, timed) => {
  const t = process.hrtime.bigint()
  await modes[m](i)
  const ms = Number(process.hrtime.bigint() - t) / 1e6
  if (timed) times[m].push(ms)
}
// The untimed warm-up of a block: at least `warmup` calls and BENCH_WARMUP_MS
// (default 250) of them, so a one-time cost (the co-process's start: from a
// large host a fork of ~100 ms that a busy machine makes the host pay back
// for a while) is not counted per call.
const warmupMs = Number(process.env.BENCH_WARMUP_MS || 250)
// Each mode in its own block by default: a spawn from a large host costs the
// host tens of ms of kernel time (copying its page tables), and on a busy
// machine whatever is timed next pays that back in run-queue waits, so
// interleaving bills the spawns' aftermath to the co-process. Against drift,
// benchrun alternates the host sizes over several short host runs instead.
// BENCH_BLOCKS=0 interleaves the modes (one call of each per round).
if (process.env.BENCH_BLOCKS !== "0") {
  for (const m of Object.keys(modes)) {
    const start = Date.now()
    let i = 0
    while (i < warmup || Date.now() - start < warmupMs) await once(m, i++, false)
    for (let n = 0; n < runs; n++) await once(m, i++, true)
  }
} else {
  for (let i = 0; i < warmup + runs; i++) for (const m of Object.keys(modes)) await once(m, i, i >= warmup)
}
console.log(JSON.stringify({ harness, rss_mib: Math.round(process.memoryUsage().rss / 1048576), modes: times }))
if (ballast) ballast[0] = 1
process.exit(0)
