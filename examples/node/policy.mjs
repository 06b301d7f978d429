// A remote hook executor in Node (v20, standard library only): JSON-RPC 2.0 over HTTP.
//
// It is what a third party writes without our Python helpers, following only the
// published contract: schemas/v2/ (the contexts, read here to check what arrives), the
// wire (docs/hooks/conformance.md) and the conformance profile, so the kit can check it:
//
//   node examples/node/policy.mjs --port 8767          # serves http://127.0.0.1:8767/hooks
//   python -m harness.hooks conformance --jsonrpc http://127.0.0.1:8767/hooks
//
// Its policy, at tool.invoked.pre: a write_artefact call whose name climbs out of the
// artefact folder ("..", a leading "/") is refused; everything else passes through.
// With HOOK_SECRET=whsec_... set, every request must carry a valid Standard Webhooks
// signature (what the harness sends with signing_secrets), else 401.

import { createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const SCHEMA_VERSION = "v2";
const SCHEMA_HEADER = "x-tiny-harness-schema";
const ABORT = -32001;
const MAX_BODY = 4 << 20;
const HERE = dirname(fileURLToPath(import.meta.url));
const CONTEXTS = join(HERE, "..", "..", "schemas", SCHEMA_VERSION, "contexts");

// operation -> { required: [...], properties: Set } from the published schemas.
const SCHEMAS = new Map(
  readdirSync(CONTEXTS)
    .filter((name) => name.endsWith(".json"))
    .map((name) => {
      const schema = JSON.parse(readFileSync(join(CONTEXTS, name), "utf8"));
      return [name.slice(0, -5), {
        required: schema.required ?? [],
        properties: new Set(Object.keys(schema.properties ?? {})),
      }];
    }),
);
const PHASES = new Set(["pre", "in", "post"]);

class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

function operationOf(method) {
  const dot = typeof method === "string" ? method.lastIndexOf(".") : -1;
  const operation = dot > 0 ? method.slice(0, dot) : "";
  return SCHEMAS.has(operation) && PHASES.has(method.slice(dot + 1)) ? operation : null;
}

function checkContext(operation, context) {
  if (context === null || typeof context !== "object" || Array.isArray(context)) {
    throw new RpcError(-32602, "Invalid params: params.context must be an object");
  }
  const { required, properties } = SCHEMAS.get(operation);
  const missing = required.filter((key) => !(key in context));
  const unknown = Object.keys(context).filter((key) => !properties.has(key));
  if (missing.length || unknown.length) {
    throw new RpcError(-32602, `Invalid params: ${operation} context: missing [${missing}], unknown [${unknown}]`);
  }
  if (operation === "tool.invoked" && (typeof context.call !== "object" || typeof context.call.name !== "string")) {
    throw new RpcError(-32602, "Invalid params: call.name must be a string");
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const veto = (reason, refusal) => new RpcError(ABORT, reason, { abort: { reason, refusal } });
const withArguments = (context, args) => ({ ...context, call: { ...context.call, arguments: args } });

// The conformance profile: a probe (correlation_id "conformance-...") never meets the policy.
async function answerProbe(context) {
  const name = context.call?.name ?? "";
  const args = context.call?.arguments ?? {};
  const number = (value) => (typeof value === "number" && value > 0 ? value : 0);
  if (name === "conformance.rewrite") return withArguments(context, { rewritten: true });
  if (name === "conformance.veto") throw veto("conformance veto", true);
  if (name === "conformance.abort") throw veto("conformance abort", false);
  if (name === "conformance.ask") {
    // An ask holds the call for a person's approval, for timeout_seconds (0: until answered).
    const abort = { reason: "conformance ask", refusal: true, ask: true, timeout_seconds: number(args.seconds) };
    throw new RpcError(ABORT, abort.reason, { abort });
  }
  if (name === "conformance.slow") await sleep(Math.min(number(args.seconds), 30) * 1000);
  if (name === "conformance.large") {
    return withArguments(context, { padding: "x".repeat(Math.min(number(args.bytes), 8 << 20)) });
  }
  return null;
}

// The policy itself: one point, one rule.
function policy(method, context) {
  if (method !== "tool.invoked.pre" || context.call.name !== "write_artefact") return null;
  const name = String(context.call.arguments?.name ?? "");
  if (name.startsWith("/") || name.split(/[\\/]/).includes("..")) {
    throw veto(`artefact name ${JSON.stringify(name)} leaves the artefact folder`, true);
  }
  return null;
}

async function answer(message, schemaVersion) {
  if (message === null || typeof message !== "object" || Array.isArray(message)
      || message.jsonrpc !== "2.0" || typeof message.method !== "string") {
    throw new RpcError(-32600, "Invalid Request");
  }
  if (schemaVersion !== undefined && schemaVersion !== SCHEMA_VERSION) {
    throw new RpcError(-32600, `schema version ${JSON.stringify(schemaVersion)} is not served: this executor speaks ${SCHEMA_VERSION}`);
  }
  const operation = operationOf(message.method);
  if (operation === null) throw new RpcError(-32601, `Method not found: ${message.method}`);
  const context = message.params?.context;
  checkContext(operation, context);
  const probe = typeof context.correlation_id === "string" && context.correlation_id.startsWith("conformance-");
  return probe ? answerProbe(context) : policy(message.method, context);
}

async function reply(message, schemaVersion) {
  const id = message !== null && typeof message === "object" && "id" in message ? message.id : undefined;
  try {
    const result = await answer(message, schemaVersion);
    return id === undefined ? undefined : { jsonrpc: "2.0", id, result };
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    const body = { code: error.code, message: error.message };
    if (error.data !== undefined) body.data = error.data;
    return id === undefined && error.code !== -32600 ? undefined : { jsonrpc: "2.0", id: id ?? null, error: body };
  }
}

function verify(secret, headers, body) {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (!id || !timestamp || !signatures) return "unsigned";
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return "stale";
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest();
  const match = signatures.split(" ").some((item) => {
    const [version, value] = item.split(",");
    const given = Buffer.from(value ?? "", "base64");
    return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected);
  });
  return match ? null : "mismatch";
}

function serve({ host, port, path, secret }) {
  const server = createServer((request, response) => {
    const chunks = [];
    let size = 0;
    request.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY) request.destroy();
      else chunks.push(chunk);
    });
    request.on("end", async () => {
      const send = (status, payload) => {
        response.writeHead(status, payload === undefined ? {} : { "content-type": "application/json" });
        response.end(payload === undefined ? undefined : JSON.stringify(payload));
      };
      if (request.method !== "POST" || request.url !== path) return send(404, { error: "not found" });
      const body = Buffer.concat(chunks);
      const problem = secret ? verify(secret, request.headers, body) : null;
      if (problem) return send(401, { error: "unauthorized", problem });
      let message;
      try {
        message = JSON.parse(body.toString("utf8"));
      } catch {
        return send(200, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
      }
      const version = request.headers[SCHEMA_HEADER];
      try {
        if (Array.isArray(message)) {
          if (message.length === 0) return send(200, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: empty batch" } });
          const replies = (await Promise.all(message.map((item) => reply(item, version)))).filter(Boolean);
          return replies.length ? send(200, replies) : send(204);
        }
        const out = await reply(message, version);
        return out === undefined ? send(204) : send(200, out);
      } catch (error) {
        const id = message?.id ?? null;
        return send(200, { jsonrpc: "2.0", id, error: { code: -32603, message: String(error) } });
      }
    });
  });
  server.listen(port, host, () => console.log(`serving the node policy at http://${host}:${port}${path}`));
  return server;
}

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  return at > 0 && at + 1 < process.argv.length ? process.argv[at + 1] : fallback;
}

const server = serve({
  host: option("--host", "127.0.0.1"),
  port: Number(option("--port", "8767")),
  path: option("--path", "/hooks"),
  secret: process.env.HOOK_SECRET ?? "",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.close(() => process.exit(0)));
