// OpenAI Node SDK WebSocket mode (ResponsesWS) through the gateway.
// Usage: NODE_PATH=… node ws_check.mjs GATEWAY_URL CLIENT_KEY
import { createRequire } from "node:module";

const require = createRequire(process.env.NODE_PATH + "/");
const OpenAI = require("openai").default ?? require("openai");
const { ResponsesWS } = require("openai/resources/responses/ws");
const { VERSION: version } = require("openai/version");

const [GW, KEY] = process.argv.slice(2);
const client = new OpenAI({ baseURL: `${GW}/v1`, apiKey: KEY, maxRetries: 0 });
const ws = new ResponsesWS(client);
const seen = [];
await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`websocket timeout, saw ${seen}`)), 15000);
  ws.on("event", (event) => {
    seen.push(event.type);
    if (event.type === "response.completed") {
      clearTimeout(timer);
      resolve();
    }
  });
  ws.on("error", (error) => {
    clearTimeout(timer);
    reject(error);
  });
  ws.send({ type: "response.create", model: "gpt-5.4", store: false, input: [{ role: "user", content: "sim: text='node over ws'" }] });
});
ws.close();
if (seen[0] !== "response.created") throw new Error(`events ${seen}`);
console.log(`ok - node openai ${version} via gateway: ResponsesWS ${seen.length} events`);
