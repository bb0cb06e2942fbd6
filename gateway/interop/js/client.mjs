// A stock @a2a-js/sdk client for the interop tests, with the SDK's default
// ClientFactory, card resolver and transports: no compatibility options.
//
//   node client.mjs SCENARIO ARGS_JSON
//
// ARGS_JSON carries the agent's base URL under the gateway (ending in "/"),
// the bearer credential, and the scenario's inputs. The script prints one
// JSON object: each step's result or its error ({error:{name,code,message,
// data}}), for the Go test to assert on. It exits 0 whenever it could print.
import { ClientFactory } from "@a2a-js/sdk/client";
import { Role, verifyAgentCardSignature } from "@a2a-js/sdk";
import { importJWK } from "jose";

const EXT = "https://github.com/a2aproject/A2A/sep/capability-negotiation";

// stdout carries the one JSON result: the SDK's debug logs go to stderr.
console.debug = (...a) => console.error(...a);

const [scenario, rawArgs] = process.argv.slice(2);
const args = JSON.parse(rawArgs ?? "{}");
const auth = { serviceParameters: { Authorization: `Bearer ${args.bearer}` } };

function errorOf(e) {
  return { error: { name: e?.name ?? "Error", code: e?.envelopeCode ?? null, message: String(e?.message ?? e) + (e?.cause ? `: ${e.cause.message ?? e.cause}` : ""), data: e?.data ?? null } };
}

async function step(fn) {
  try {
    return await fn();
  } catch (e) {
    return errorOf(e);
  }
}

function message(text, metadata) {
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}`, contextId: "", taskId: "",
    role: Role.ROLE_USER, extensions: [], referenceTaskIds: [], metadata,
    parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
  };
}

// summary is what the test needs of a SendMessage result or stream event.
function summary(v) {
  if (v?.payload) return { kind: v.payload.$case, ...summary(v.payload.value) };
  if (v && "messageId" in v && !("status" in v)) return { kind: "message", text: partsText(v.parts) };
  const out = { taskId: v?.taskId ?? v?.id, state: v?.status?.state };
  const art = v?.artifact ?? v?.artifacts?.[0];
  if (art) out.artifact = art.parts?.map((p) => p.content?.value);
  return out;
}

function partsText(parts) {
  return (parts ?? []).filter((p) => p.content?.$case === "text").map((p) => p.content.value).join("");
}

async function resolve(base) {
  const client = await new ClientFactory().createFromUrl(base);
  const card = await client.getAgentCard();
  return { client, card: { name: card.name, protocolVersion: client.protocolVersion, supportedInterfaces: card.supportedInterfaces, securitySchemes: card.securitySchemes } };
}

// basic: card resolution, SendMessage, SendStreamingMessage, GetTask.
async function basic() {
  const out = {};
  let client;
  out.card = await step(async () => {
    const r = await resolve(args.base);
    client = r.client;
    return r.card;
  });
  if (!client) return out;
  let taskId;
  out.send = await step(async () => {
    const s = summary(await client.sendMessage({ message: message("hello"), metadata: undefined }, auth));
    taskId = s.taskId;
    return s;
  });
  out.stream = await step(async () => {
    const events = [];
    for await (const ev of client.sendMessageStream({ message: message("stream me"), metadata: undefined }, auth)) {
      events.push(summary(ev));
    }
    return { events };
  });
  out.get = await step(async () => {
    if (!taskId) throw new Error("no task id from send");
    return summary(await client.getTask({ id: taskId, historyLength: undefined, tenant: "" }, auth));
  });
  return out;
}

// ext calls one of the capability extension's methods through the SDK's
// JSON-RPC transport, the SDK's way to call a method it does not model.
function ext(client, method, params) {
  return client.transport.callExtensionMethod(method, params, {
    serviceParameters: { ...auth.serviceParameters, "A2A-Extensions": EXT, "A2A-Version": client.protocolVersion },
  }).then((r) => r.result);
}

async function requestCapability(client) {
  const res = await ext(client, "a2a/capabilities/request", args.request);
  return res.capabilities[0];
}

// invoke: a skill invocation without a capability, then with one.
async function invoke() {
  const { client } = await resolve(args.base);
  const out = {};
  out.without = await step(() => ext(client, "a2a/skill/invoke", { skill: args.skill, arguments: args.arguments ?? {} }));
  let cap;
  out.request = await step(async () => {
    cap = await requestCapability(client);
    return { id: cap.id, handles: cap.resourceHandles?.length ?? 0 };
  });
  if (!cap) return out;
  out.with = await step(() => ext(client, "a2a/skill/invoke", {
    skill: args.skill, capabilityId: cap.id,
    arguments: { ...(args.arguments ?? {}), resourceHandle: cap.resourceHandles?.[0]?.handle },
  }));
  return out;
}

// delegate: a capability requested from the source agent is delegated to
// the target agent by the SDK's own sendMessage, with the capability named
// in message.metadata under the extension's URI.
async function delegate() {
  const out = {};
  const { client: source } = await resolve(args.source);
  let cap;
  out.request = await step(async () => {
    cap = await requestCapability(source);
    return { id: cap.id };
  });
  if (!cap) return out;
  const { client: target } = await resolve(args.base);
  out.send = await step(async () => summary(await target.sendMessage({
    message: message(args.text ?? "summarize", { [EXT]: { capabilities: [cap.id] } }), metadata: undefined,
  }, auth)));
  return out;
}

// verify: the card's signature, checked by the SDK's own verifier with the
// key the signature names (kid) in the JWK set it points at (jku): on the
// card as served, on the card as the SDK's client resolved it, and on the
// served card with its name changed (which must not verify).
async function verify() {
  const retrieve = async (kid, jku) => {
    const jwks = await (await fetch(jku)).json();
    const jwk = jwks.keys.find((k) => k.kid === kid);
    if (!jwk) throw new Error(`kid ${kid} not in ${jku}`);
    return importJWK(jwk, jwk.alg);
  };
  const verifier = verifyAgentCardSignature(retrieve);
  const served = await (await fetch(new URL(".well-known/agent-card.json", args.base))).json();
  const ok = async (card) => {
    await verifier(card);
    return { verified: true };
  };
  const { client } = await resolve(args.base);
  return {
    served: await step(() => ok(served)),
    resolved: await step(async () => {
      await client.getAgentCard(undefined, verifier);
      return { verified: true };
    }),
    tampered: await step(() => ok({ ...served, name: `${served.name} (changed)` })),
  };
}

// lifecycle: a task the agent holds working (SendMessage returning
// immediately), followed with resubscribeTask, canceled with cancelTask
// once the subscription has its first event, then read with getTask.
async function lifecycle() {
  const { client } = await resolve(args.base);
  const out = {};
  let taskId;
  out.send = await step(async () => {
    const s = summary(await client.sendMessage({
      message: message(args.text),
      configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true },
      metadata: undefined,
    }, auth));
    taskId = s.taskId;
    return s;
  });
  if (!taskId) return out;
  out.resubscribe = await step(async () => {
    const events = [];
    for await (const ev of client.resubscribeTask({ id: taskId, tenant: "" }, auth)) {
      events.push(summary(ev));
      if (events.length === 1) {
        out.cancel = await step(async () => summary(await client.cancelTask({ id: taskId, tenant: "", metadata: undefined }, auth)));
      }
    }
    return { events };
  });
  out.get = await step(async () => summary(await client.getTask({ id: taskId, historyLength: undefined, tenant: "" }, auth)));
  return out;
}

// refusals: for each case, a message whose metadata carries the case's
// extension data, sent with sendMessage and with sendMessageStream; each
// step's result or error as the application sees it.
async function refusals() {
  const { client } = await resolve(args.base);
  const cases = [];
  for (const c of args.cases) {
    const md = c.ext ? { [EXT]: c.ext } : undefined;
    const send = await step(async () => summary(await client.sendMessage({ message: message(c.text, md), metadata: undefined }, auth)));
    const stream = await step(async () => {
      const events = [];
      for await (const ev of client.sendMessageStream({ message: message(c.text, md), metadata: undefined }, auth)) {
        events.push(summary(ev));
      }
      return { events };
    });
    cases.push({ send, stream });
  }
  return { cases };
}

// push: on a task the agent holds working, a push config created, read,
// listed and deleted with the SDK's own methods, then read again.
async function push() {
  const { client } = await resolve(args.base);
  const out = {};
  const task = summary(await client.sendMessage({
    message: message(args.text),
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true },
    metadata: undefined,
  }, auth));
  const ids = { tenant: "", taskId: task.taskId };
  const config = (c) => ({ taskId: c.taskId, id: c.id, url: c.url, token: c.token });
  out.create = await step(async () => config(await client.createTaskPushNotificationConfig({
    ...ids, id: "p-1", url: args.hook, token: "tok", authentication: undefined,
  }, auth)));
  out.get = await step(async () => config(await client.getTaskPushNotificationConfig({ ...ids, id: "p-1" }, auth)));
  out.list = await step(async () => {
    const res = await client.listTaskPushNotificationConfig({ ...ids, pageSize: 0, pageToken: "" }, auth);
    return { configs: (res.configs ?? res).map(config) };
  });
  out.delete = await step(async () => {
    await client.deleteTaskPushNotificationConfig({ ...ids, id: "p-1" }, auth);
    return { deleted: true };
  });
  out.after = await step(async () => config(await client.getTaskPushNotificationConfig({ ...ids, id: "p-1" }, auth)));
  return out;
}

const scenarios = { basic, invoke, delegate, verify, lifecycle, refusals, push };
if (!scenarios[scenario]) {
  console.error(`usage: node client.mjs ${Object.keys(scenarios).join("|")} ARGS_JSON`);
  process.exit(2);
}
const result = await step(scenarios[scenario]);
process.stdout.write(JSON.stringify(result) + "\n");
