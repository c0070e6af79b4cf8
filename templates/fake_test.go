package templates

// fakeHookLoop is a stand-in hook-loop for the plugin tests, a node script. As
// a one-shot hook (`opencode-hook ...`, `pi-hook ...`) it records "argv<TAB>stdin"
// in calls.log and prints answer.json. As `serve --stdio --harness H ...` it says
// hello and then records each request in calls.log as the one-shot hook it
// stands for would have been recorded, and answers with answer.json; a request
// whose input contains CRASH makes it exit without answering, one with LAST
// makes it exit right after answering, one with HANG is never answered (the
// one-shot hook then never exits), one with COHANG is never answered by the
// co-process but is by the one-shot hook. modes.log gets
// "serve PID", "oneshot EVENT" and "exit PID" lines.
func fakeHookLoop(node, dir string) string {
	return "#!" + node + `
const fs = require("fs")
const dir = ` + jsString(dir) + `
const args = process.argv.slice(2)
const log = (argv, input) => fs.appendFileSync(dir + "/calls.log", argv + "\t" + input + "\n")
const mode = (line) => fs.appendFileSync(dir + "/modes.log", line + "\n")
const answer = () => fs.readFileSync(dir + "/answer.json", "utf8").trim()
if (args[0] === "serve") {
  const h = args.indexOf("--harness")
  const harness = args[h + 1]
  const flags = args.slice(h + 2)
  mode("serve " + process.pid)
  process.stdout.write(JSON.stringify({ hello: "hook-loop", version: "fake", pid: process.pid }) + "\n")
  let buf = ""
  process.stdin.setEncoding("utf8")
  process.stdin.on("data", (d) => {
    buf += d
    let i
    while ((i = buf.indexOf("\n")) >= 0) {
      const r = JSON.parse(buf.slice(0, i))
      buf = buf.slice(i + 1)
      const input = JSON.stringify(r.input)
      const eventFlag = harness === "pi" ? ["--event=" + r.event] : ["--event", r.event]
      const cfg = r.config ? ["--config=" + r.config] : []
      log([harness + "-hook", ...eventFlag, ...cfg, ...flags].join(" "), input)
      if (input.includes("CRASH")) process.exit(3)
      if (input.includes("HANG")) continue // HANG and COHANG
      process.stdout.write(JSON.stringify({ id: r.id, stdout: answer() + "\n", stderr: "", exit: 0 }) + "\n", () => {
        if (input.includes("LAST")) process.exit(0)
      })
    }
  })
  process.stdin.on("end", () => {
    mode("exit " + process.pid)
    process.exit(0)
  })
} else {
  const input = fs.readFileSync(0, "utf8")
  const ev = args.find((a) => a.startsWith("--event=")) || args[args.indexOf("--event") + 1]
  mode("oneshot " + String(ev).replace("--event=", ""))
  log(args.join(" "), input)
  if (input.includes("HANG") && !input.includes("COHANG")) setInterval(() => {}, 1000)
  else process.stdout.write(answer() + "\n")
}
`
}
