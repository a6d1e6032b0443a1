// An independent MCP client for cchub's tests: the official TypeScript SDK
// (pinned in package.json, installed here by `npm ci`) drives a server over
// stdio through a script of steps.
//
// usage: node client.mjs SCRIPT.json -- COMMAND [ARGS...]
//        (SCRIPT.json may be "-" for standard input)
//
// SCRIPT is a JSON array of steps:
//   {"list": true}                      tools/list
//   {"tool": NAME, "args": {...}}       tools/call through Client.callTool
//   {"tool": NAME, "args": ANY, "raw": true}
//                                       tools/call sent as is: the arguments go
//                                       out verbatim (wrong field names, wrong
//                                       types) and the reply is not checked
//                                       against the tool's output schema
//   {"sleep": MS}                       wait
//   {"exec": "shell command"}           run a command (sh -c) between calls,
//                                       e.g. to change a file behind the
//                                       server's back
//
// It prints one JSON line per step, in order:
//   list:  {"step": i, "list": [names], "bytes": n, "ms": n}
//          (bytes: the size of the JSON of the tools array)
//   tool:  {"step": i, "tool": NAME, "isError": bool, "text": "...", "ms": n}
//          a JSON-RPC error instead of a result adds "protocolError": true and
//          its "code"; "text" is then the error's message
//   sleep: {"step": i, "slept": MS, "ms": n}
//   exec:  {"step": i, "exec": "...", "status": n, "ms": n}
//
// The server's stderr passes through to this process's stderr. Exit status:
// 0 when every step ran (whatever the tools answered), 2 for bad usage or a
// bad script, 1 when the server could not be started or the connection broke.
// MCP_TIMEOUT_MS bounds each request (default 120000).
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js";

function usage(msg) {
  process.stderr.write(`client.mjs: ${msg}\nusage: node client.mjs SCRIPT.json -- COMMAND [ARGS...]\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
if (sep !== 1 || sep + 1 >= argv.length) usage("want one script file, then -- and the server command");
let script;
try {
  script = JSON.parse(readFileSync(argv[0] === "-" ? 0 : argv[0], "utf8"));
} catch (e) {
  usage(`reading the script ${argv[0]}: ${e.message}`);
}
if (!Array.isArray(script)) usage("the script must be a JSON array of steps");
script.forEach((s, i) => {
  if (s === null || typeof s !== "object" || !(s.list || typeof s.tool === "string" || typeof s.sleep === "number" || typeof s.exec === "string")) {
    usage(`step ${i} is not {"list": true}, {"tool": NAME, ...}, {"sleep": MS} or {"exec": CMD}: ${JSON.stringify(s)}`);
  }
});

const [command, ...args] = argv.slice(sep + 1);
const timeout = Number(process.env.MCP_TIMEOUT_MS || 120000);
// The server gets this process's whole environment (the SDK's default
// passes a handful of variables): the tests' own configuration directory
// and CCHUB_NO_SHARE reach it.
const transport = new StdioClientTransport({ command, args, stderr: "inherit", env: process.env });
const client = new Client({ name: "cchub-test-client", version: "1.0.0" });
try {
  await client.connect(transport, { timeout });
} catch (e) {
  process.stderr.write(`client.mjs: connecting to ${command}: ${e && e.message || e}\n`);
  process.exit(1);
}

const print = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const textOf = (r) => (r.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

let broken = false;
for (const [i, step] of script.entries()) {
  const t0 = Date.now();
  const ms = () => Date.now() - t0;
  try {
    if (step.list) {
      const r = await client.listTools(undefined, { timeout });
      print({ step: i, list: r.tools.map((t) => t.name), bytes: Buffer.byteLength(JSON.stringify(r.tools)), ms: ms() });
    } else if (typeof step.exec === "string") {
      const r = spawnSync("sh", ["-c", step.exec], { stdio: ["ignore", "ignore", "inherit"] });
      print({ step: i, exec: step.exec, status: r.status, ms: ms() });
    } else if (typeof step.sleep === "number") {
      await new Promise((r) => setTimeout(r, step.sleep));
      print({ step: i, slept: step.sleep, ms: ms() });
    } else {
      const params = { name: step.tool, arguments: step.args === undefined ? {} : step.args };
      const r = step.raw
        ? await client.request({ method: "tools/call", params }, CallToolResultSchema, { timeout })
        : await client.callTool(params, undefined, { timeout });
      print({ step: i, tool: step.tool, isError: !!r.isError, text: textOf(r), ms: ms() });
    }
  } catch (e) {
    const out = { step: i, isError: true, protocolError: true, text: String(e && e.message || e), ms: ms() };
    if (step.tool !== undefined) out.tool = step.tool;
    if (step.list) out.list = null;
    if (e instanceof McpError) out.code = e.code;
    print(out);
    // A closed connection fails every later step the same way: stop there.
    if (e instanceof McpError && e.code === -32000 && /closed/i.test(e.message)) {
      broken = true;
      break;
    }
  }
}
await client.close();
process.exit(broken ? 1 : 0);
