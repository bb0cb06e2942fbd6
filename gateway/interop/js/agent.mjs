// A stock @a2a-js/sdk agent for the interop tests: the SDK's own
// DefaultRequestHandler, JSON-RPC and agent-card handlers on express, with
// default settings.
//
//   node agent.mjs v1     serves A2A v1.0 only
//   node agent.mjs both   serves v1.0 and, through the SDK's legacy layer, v0.3
//
// It listens on a free loopback port and prints one JSON line,
// {"url":"http://127.0.0.1:PORT/"}, once it is ready. Every message turns
// into a task: submitted, working, one artifact, completed. The artifact's
// data part echoes what the agent received (the message's text and
// metadata, the request's metadata, and the capability headers the gateway
// set), so a test can see what reached the agent.
import express from "express";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import { TaskState, Role, AGENT_CARD_PATH } from "@a2a-js/sdk";

const mode = process.argv[2];
if (mode !== "v1" && mode !== "both") {
  console.error("usage: node agent.mjs v1|both");
  process.exit(2);
}
const legacyCompat = { enabled: mode === "both" };

function card(base) {
  const interfaces = [{ url: base, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }];
  if (mode === "both") {
    interfaces.push({ url: base, protocolBinding: "JSONRPC", protocolVersion: "0.3", tenant: "" });
  }
  return {
    name: `js-${mode}`,
    description: "A stock @a2a-js/sdk agent that echoes what it receives.",
    supportedInterfaces: interfaces,
    provider: undefined,
    version: "1.0.0",
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [{ uri: "https://github.com/a2aproject/A2A/sep/capability-negotiation", description: "", required: false, params: undefined }],
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: [{ id: "echo", name: "echo", description: "Echoes the message", tags: ["echo"], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
}

function textOf(message) {
  return (message?.parts ?? [])
    .filter((p) => p.content?.$case === "text")
    .map((p) => p.content.value)
    .join("");
}

function capabilityHeaders(headers) {
  const out = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (k.toLowerCase().startsWith("a2a-capability")) out[k.toLowerCase()] = v;
  }
  return out;
}

const executor = {
  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const msg = ctx.userMessage;
    const status = (state) => ({ state, message: undefined, timestamp: new Date().toISOString() });
    bus.publish(AgentEvent.task({
      id: taskId, contextId, status: status(TaskState.TASK_STATE_SUBMITTED),
      artifacts: [], history: [msg], metadata: undefined,
    }));
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_WORKING), metadata: undefined }));
    const echo = {
      text: textOf(msg),
      messageMetadata: msg.metadata ?? null,
      requestMetadata: ctx.request.metadata ?? null,
      capabilityHeaders: capabilityHeaders(ctx.context?.headers),
    };
    bus.publish(AgentEvent.artifactUpdate({
      taskId, contextId, append: false, lastChunk: true, metadata: undefined,
      artifact: {
        artifactId: "echo", name: "echo", description: "what the agent received", metadata: undefined, extensions: [],
        parts: [{ content: { $case: "data", value: echo }, metadata: undefined, filename: "", mediaType: "application/json" }],
      },
    }));
    bus.publish(AgentEvent.statusUpdate({
      taskId, contextId, metadata: undefined,
      status: {
        state: TaskState.TASK_STATE_COMPLETED, timestamp: new Date().toISOString(),
        message: {
          messageId: `${taskId}-done`, contextId, taskId, role: Role.ROLE_AGENT, metadata: undefined,
          extensions: [], referenceTaskIds: [],
          parts: [{ content: { $case: "text", value: `echo: ${echo.text}` }, metadata: undefined, filename: "", mediaType: "text/plain" }],
        },
      },
    }));
    bus.finished();
  },
  async cancelTask() {},
};

const app = express();
const server = app.listen(0, "127.0.0.1", () => {
  const base = `http://127.0.0.1:${server.address().port}/`;
  const handler = new DefaultRequestHandler(card(base), new InMemoryTaskStore(), executor);
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler, legacyCompat }));
  app.use("/", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  process.stdout.write(JSON.stringify({ url: base }) + "\n");
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
