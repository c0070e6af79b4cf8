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

const all = { oneshot: () => load("oneshot"), coproc: () => load("coproc"), hello: () => spawnOnce(hello), true: () => spawnOnce("/bin/true") }
// BENCH_MODES picks modes (comma-separated; default all of them).
const modes = {}
for (const m of (process.env.BENCH_MODES || Object.keys(all).join(",")).split(",")) modes[m] = await all[m]()
const times = Object.fromEntries(Object.keys(modes).map((m) => [m, []]))
const once = async (m, i) => {
  const t = process.hrtime.bigint()
  await modes[m](i)
  const ms = Number(process.hrtime.bigint() - t) / 1e6
  if (i >= warmup) times[m].push(ms)
}
// Interleaved by default, against drift. BENCH_BLOCKS=1 times each mode in its
// own block instead: in a large host every spawn leaves work behind (copy-on-
// write faults, page-table teardown) that lands on whatever is timed next.
if (process.env.BENCH_BLOCKS === "1") {
  for (const m of Object.keys(modes)) for (let i = 0; i < warmup + runs; i++) await once(m, i)
} else {
  for (let i = 0; i < warmup + runs; i++) for (const m of Object.keys(modes)) await once(m, i)
}
console.log(JSON.stringify({ harness, rss_mib: Math.round(process.memoryUsage().rss / 1048576), modes: times }))
if (ballast) ballast[0] = 1
process.exit(0)
