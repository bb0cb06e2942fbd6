// A stock @modelcontextprotocol/sdk client for the interop tests: the
// SDK's Client with its StreamableHTTPClientTransport, default options.
//
//   node mcpclient.mjs ARGS_JSON
//
// ARGS_JSON carries the MCP endpoint under the gateway (url), the bearer
// credential, a capability token for the files server, the handle of a
// file it covers (mine) and one of a file it does not (foreign). The
// script prints one JSON object: each step's result or its error
// ({error:{name,code,message,data}}), for the Go test to assert on. It
// exits 0 whenever it could print.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

// stdout carries the one JSON result: debug logs go to stderr.
console.debug = (...a) => console.error(...a);

const args = JSON.parse(process.argv[2] ?? "{}");
const capability = { "dev.capgate/capability": { capabilityToken: args.token } };

function errorOf(e) {
  return { error: { name: e?.name ?? "Error", code: e?.code ?? null, message: String(e?.message ?? e), data: e?.data ?? null } };
}

async function step(fn) {
  try {
    return await fn();
  } catch (e) {
    return errorOf(e);
  }
}

function texts(res) {
  return (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text);
}

const out = {};
// Without credentials: the gateway's 401, as the SDK hands it over.
out.unauthenticated = await step(async () => {
  await new Client({ name: "capgate-interop", version: "1.0.0" }).connect(new StreamableHTTPClientTransport(new URL(args.url)));
  return {};
});
const transport = new StreamableHTTPClientTransport(new URL(args.url), {
  requestInit: { headers: { Authorization: `Bearer ${args.bearer}` } },
});
const client = new Client({ name: "capgate-interop", version: "1.0.0" });
out.connect = await step(async () => {
  await client.connect(transport);
  return { server: client.getServerVersion()?.name, protocolVersion: transport.protocolVersion ?? null };
});
if (!out.connect.error) {
  out.list = await step(async () => (await client.listTools()).tools.map((t) => t.name).sort());
  out.listScoped = await step(async () => (await client.listTools({ _meta: capability })).tools.map((t) => t.name).sort());
  out.read = await step(async () => {
    const res = await client.callTool({ name: "read_file", arguments: { path: args.mine }, _meta: capability });
    return { isError: res.isError ?? false, text: texts(res), structured: res.structuredContent ?? null };
  });
  out.search = await step(async () => {
    const res = await client.callTool({ name: "search_files", arguments: { query: "revenue" }, _meta: capability });
    return { isError: res.isError ?? false, text: texts(res), structured: res.structuredContent ?? null };
  });
  out.noCapability = await step(() => client.callTool({ name: "read_file", arguments: { path: args.mine } }));
  out.write = await step(() => client.callTool({ name: "write_file", arguments: { path: args.mine, content: "x" }, _meta: capability }));
  out.foreign = await step(() => client.callTool({ name: "read_file", arguments: { path: args.foreign }, _meta: capability }));
  await step(() => client.close());
}
process.stdout.write(JSON.stringify(out) + "\n");
