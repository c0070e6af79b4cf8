// Loads the rendered hook-loop extension the way pi does (jiti), hands it a fake
// `pi`, and drives its handlers with captured-shaped payloads against
// fake-hook.sh. Usage: node driver.mjs JITI_MJS EXTENSION.ts FAKE_DIR
// Exits non-zero with the failed check on stderr.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, rmSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [jitiPath, extPath, fakeDir] = process.argv.slice(2);
const { createJiti } = await import(jitiPath);
const jiti = createJiti(import.meta.url);
const factory = await jiti.import(extPath, { default: true });
assert.equal(typeof factory, "function", "the extension's default export is the factory");

function fresh() {
	const handlers = {};
	const sent = [];
	const pi = {
		on(name, fn) {
			(handlers[name] ||= []).push(fn);
		},
		sendUserMessage(text, opts) {
			sent.push({ text, opts });
		},
	};
	factory(pi);
	return { handlers, sent };
}

const CONFIG = process.env.EXT_CONFIG;
const EVENT_LOG = process.env.EXT_EVENT_LOG;

function ctx(hasUI, cwd = process.cwd()) {
	const notes = [];
	return {
		cwd,
		hasUI,
		notes,
		idle: true,
		isIdle() {
			return this.idle;
		},
		sessionManager: { getSessionId: () => "sess-1" },
		ui: { notify: (m, l) => notes.push([m, l]) },
	};
}

async function fire(ext, name, event, c) {
	let out;
	for (const fn of ext.handlers[name] || []) out = await fn(event, c);
	return out;
}

function calls() {
	return readdirSync(fakeDir)
		.sort()
		.map((f) => JSON.parse(readFileSync(join(fakeDir, f), "utf8")));
}
function reset() {
	rmSync(fakeDir, { recursive: true, force: true });
	mkdirSync(fakeDir);
	for (const k of Object.keys(process.env)) if (k.startsWith("FAKE_") && k !== "FAKE_DIR") delete process.env[k];
}

const final = (text) => ({ type: "message_end", message: { role: "assistant", content: [{ type: "text", text }], stopReason: "stop" } });
const toolUse = { type: "message_end", message: { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "ls" } }], stopReason: "toolUse" } };
const block = (reason, n = 1, max = 3) => JSON.stringify({ action: "block", reason, stopBlocks: n, maxStopBlocks: max });
const checks = [];
function check(name, fn) {
	checks.push([name, fn]);
}

check("handlers are registered for the events hook-loop uses", async () => {
	const ext = fresh();
	for (const n of ["session_start", "input", "before_agent_start", "tool_call", "tool_result", "message_end", "agent_end", "session_shutdown"])
		assert.ok(ext.handlers[n], "no handler for " + n);
});

check("tool_call: a block answer refuses the tool with the reason", async () => {
	process.env.FAKE_REPLY_tool_call = block("no rm -rf here");
	process.env.FAKE_EXIT_tool_call = "2";
	const ext = fresh();
	const out = await fire(ext, "tool_call", { type: "tool_call", toolName: "bash", toolCallId: "c1", input: { command: "rm -rf /" } }, ctx(false));
	assert.deepEqual(out, { block: true, reason: "no rm -rf here" });
	const [c] = calls();
	assert.equal(c.argv, `pi-hook --event=tool_call --config=${CONFIG} --event-log=${EVENT_LOG}`);
	assert.equal(c.cwd, process.cwd(), "hook-loop runs in pi's cwd");
	assert.equal(c.stdin.session_id, "sess-1");
	assert.equal(c.stdin.cwd, process.cwd());
	assert.equal(c.stdin.event, "tool_call");
	assert.equal(c.stdin.payload.input.command, "rm -rf /");
});

check("tool_call: allow returns nothing", async () => {
	const ext = fresh();
	const out = await fire(ext, "tool_call", { type: "tool_call", toolName: "bash", toolCallId: "c1", input: { command: "ls" } }, ctx(false));
	assert.equal(out, undefined);
});

check("session_start context reaches the model through before_agent_start, once", async () => {
	process.env.FAKE_REPLY_session_start = JSON.stringify({ action: "steer", context: "THE LOOP CONTRACT", stopBlocks: 0 });
	const ext = fresh();
	const c = ctx(false);
	await fire(ext, "session_start", { type: "session_start", reason: "startup" }, c);
	await fire(ext, "input", { type: "input", text: "hi", source: "interactive" }, c);
	const out = await fire(ext, "before_agent_start", { type: "before_agent_start", prompt: "hi" }, c);
	assert.equal(out.message.customType, "hook-loop");
	assert.equal(out.message.content, "THE LOOP CONTRACT");
	assert.equal(await fire(ext, "before_agent_start", { type: "before_agent_start", prompt: "again" }, c), undefined);
	assert.deepEqual(calls().map((x) => x.stdin.event), ["session_start", "input"]);
	assert.equal(calls()[1].stdin.payload.text, "hi");
});

check("input: our own follow-ups are not sent as the person's prompt", async () => {
	const ext = fresh();
	await fire(ext, "input", { type: "input", text: "keep going", source: "extension" }, ctx(false));
	assert.equal(calls().length, 0);
});

check("input: a refused prompt is handled and shown", async () => {
	process.env.FAKE_REPLY_input = block("not now");
	process.env.FAKE_EXIT_input = "2";
	const ext = fresh();
	const c = ctx(true);
	assert.deepEqual(await fire(ext, "input", { type: "input", text: "x", source: "interactive" }, c), { action: "handled" });
	assert.deepEqual(c.notes, [["not now", "error"]]);
});

check("tool_result: the payload goes through untouched; a steer is appended to the result", async () => {
	process.env.FAKE_REPLY_tool_result = JSON.stringify({ action: "steer", context: "tests passed: now verified", stopBlocks: 0 });
	const ext = fresh();
	const ev = { type: "tool_result", toolName: "bash", toolCallId: "c1", input: { command: "x" }, content: [{ type: "text", text: "out\n\n\nCommand exited with code 3" }], isError: true };
	const out = await fire(ext, "tool_result", ev, ctx(false));
	assert.deepEqual(calls()[0].stdin.payload, ev);
	assert.equal(out.content.length, 2);
	assert.match(out.content[1].text, /tests passed: now verified/);
});

check("print mode: a refused stop queues the reason as a follow-up from message_end, bounded", async () => {
	process.env.FAKE_REPLY_message_end = block("you cannot stop yet", 1, 2);
	process.env.FAKE_EXIT_message_end = "2";
	const ext = fresh();
	const c = ctx(false);
	await fire(ext, "input", { type: "input", text: "go", source: "interactive" }, c);
	assert.equal(await fire(ext, "message_end", toolUse, c), undefined);
	assert.equal(await fire(ext, "message_end", { type: "message_end", message: { role: "user", content: [] } }, c), undefined);
	assert.equal(calls().filter((x) => x.stdin.event === "message_end").length, 0, "only the final assistant message is a stop");
	await fire(ext, "message_end", final("finished?"), c);
	assert.deepEqual(ext.sent, [{ text: "you cannot stop yet", opts: { deliverAs: "followUp" } }]);
	const stops = () => calls().filter((x) => x.stdin.event === "message_end");
	assert.equal(stops()[0].stdin.stop_hook_active, false);
	assert.deepEqual(stops()[0].stdin.payload.message, { role: "assistant", content: [{ type: "text", text: "finished?" }], stopReason: "stop" });
	await fire(ext, "agent_end", { type: "agent_end", messages: [] }, c);
	assert.equal(ext.sent.length, 1, "agent_end sends nothing in print mode");
	await fire(ext, "message_end", final("finished!"), c);
	assert.equal(stops()[1].stdin.stop_hook_active, true, "a continuation says so");
	assert.equal(ext.sent.length, 2);
	// maxStopBlocks (2) follow-ups without tool use: the third refusal is not sent
	await fire(ext, "message_end", final("really finished"), c);
	assert.equal(ext.sent.length, 2, "never more than maxStopBlocks follow-ups in a row");
	// tool use resets the bound
	await fire(ext, "tool_result", { type: "tool_result", toolName: "bash", toolCallId: "c9", input: { command: "ls" }, content: [], isError: false }, c);
	await fire(ext, "message_end", final("now?"), c);
	assert.equal(ext.sent.length, 3);
});

check("rpc / interactive: the follow-up waits for agent_end, and the next agent_end does not repeat it", async () => {
	process.env.FAKE_REPLY_message_end = block("keep working");
	process.env.FAKE_EXIT_message_end = "2";
	const ext = fresh();
	const c = ctx(true);
	await fire(ext, "input", { type: "input", text: "go", source: "rpc" }, c);
	await fire(ext, "message_end", final("done"), c);
	assert.equal(ext.sent.length, 0, "nothing sent before the run ended");
	await fire(ext, "agent_end", { type: "agent_end", messages: [] }, c);
	assert.deepEqual(ext.sent, [{ text: "keep working", opts: { deliverAs: "followUp" } }]);
	// the follow-up's own run ends with an allowed stop
	process.env.FAKE_REPLY_message_end = JSON.stringify({ action: "allow", stopBlocks: 0 });
	process.env.FAKE_EXIT_message_end = "0";
	await fire(ext, "input", { type: "input", text: "keep working", source: "extension" }, c);
	await fire(ext, "message_end", final("ALL DONE"), c);
	await fire(ext, "agent_end", { type: "agent_end", messages: [] }, c);
	await fire(ext, "agent_end", { type: "agent_end", messages: [] }, c);
	assert.equal(ext.sent.length, 1, "a second agent_end must not send again");
	assert.equal(calls().filter((x) => x.stdin.event === "message_end")[1].stdin.stop_hook_active, true);
});

check("rpc / interactive: an agent_end that arrives while pi still streams waits for idle", async () => {
	process.env.FAKE_REPLY_message_end = block("keep working");
	process.env.FAKE_EXIT_message_end = "2";
	const ext = fresh();
	const c = ctx(true);
	await fire(ext, "message_end", final("done"), c);
	c.idle = false;
	await fire(ext, "agent_end", { type: "agent_end", messages: [] }, c);
	await new Promise((r) => setTimeout(r, 150));
	assert.equal(ext.sent.length, 0, "a follow-up queued while streaming would wait for the next prompt");
	c.idle = true;
	await new Promise((r) => setTimeout(r, 150));
	assert.deepEqual(ext.sent, [{ text: "keep working", opts: { deliverAs: "followUp" } }]);
});

check("hook-loop missing: one line, and the agent proceeds (fail open)", async () => {
	process.env.FAKE_EXIT_tool_call = "127";
	process.env.FAKE_REPLY_tool_call = "not json";
	const ext = fresh();
	const c = ctx(true);
	const ev = { type: "tool_call", toolName: "bash", toolCallId: "c1", input: { command: "ls" } };
	assert.equal(await fire(ext, "tool_call", ev, c), undefined);
	assert.equal(await fire(ext, "tool_call", ev, c), undefined);
	assert.equal(c.notes.length, 1, "one line, not one per call: " + JSON.stringify(c.notes));
	assert.match(c.notes[0][0], /pi-hook tool_call failed \(exit 127: no answer\); letting the agent proceed/);
});

check("the same message to the person is said once in a row", async () => {
	process.env.FAKE_REPLY_tool_call = JSON.stringify({ action: "allow", systemMessage: "hook-loop: load hook-loop.json: broken (the agent proceeds)", stopBlocks: 0 });
	const ext = fresh();
	const c = ctx(true);
	const ev = { type: "tool_call", toolName: "bash", toolCallId: "c1", input: { command: "ls" } };
	await fire(ext, "tool_call", ev, c);
	await fire(ext, "tool_call", ev, c);
	assert.deepEqual(c.notes, [["hook-loop: load hook-loop.json: broken (the agent proceeds)", "info"]]);
});

check("hook-loop too slow: the call is cut at the timeout and the agent proceeds", async () => {
	process.env.FAKE_SLEEP = "5";
	process.env.HOOK_LOOP_PI_TIMEOUT_MS = "300";
	const ext = fresh();
	const c = ctx(true);
	const t0 = Date.now();
	const out = await fire(ext, "tool_call", { type: "tool_call", toolName: "bash", toolCallId: "c1", input: { command: "ls" } }, c);
	delete process.env.HOOK_LOOP_PI_TIMEOUT_MS;
	assert.equal(out, undefined);
	assert.ok(Date.now() - t0 < 4000, "the timeout did not cut the call");
	assert.match(c.notes[0][0], /no answer within 300 ms/);
});

check("hook-loop failing and the loop fail_closed: tools are refused", async () => {
	process.env.FAKE_EXIT_tool_call = "1";
	process.env.FAKE_REPLY_tool_call = "";
	writeFileSync(CONFIG, JSON.stringify({ loop: { fail_closed: true } }));
	try {
		const ext = fresh();
		const c = ctx(false);
		const out = await fire(ext, "tool_call", { type: "tool_call", toolName: "bash", toolCallId: "c1", input: { command: "ls" } }, c);
		assert.equal(out.block, true);
		assert.match(out.reason, /fail_closed/);
		// a prompt is not refused for it: fail_closed covers tools and stops
		process.env.FAKE_EXIT_input = "1";
		assert.equal(await fire(ext, "input", { type: "input", text: "hi", source: "interactive" }, c), undefined);
	} finally {
		rmSync(CONFIG, { force: true });
	}
});

let failed = 0;
for (const [name, fn] of checks) {
	reset();
	try {
		await fn();
		console.log("ok   " + name);
	} catch (e) {
		failed++;
		console.error("FAIL " + name + ": " + (e?.message ?? e));
	}
}
process.exit(failed ? 1 : 0);
