// OpenAI Node SDK through the gateway: stream helper, streaming and non-stream create,
// models.list, and the errors for a bad key and an unknown model.
// Usage: NODE_PATH=… node sdk_check.mjs GATEWAY_URL CLIENT_KEY
import { createRequire } from "node:module";

const require = createRequire(process.env.NODE_PATH + "/");
const OpenAI = require("openai").default ?? require("openai");
const { VERSION: version } = require("openai/version");

const [GW, KEY] = process.argv.slice(2);
const client = new OpenAI({ baseURL: `${GW}/v1`, apiKey: KEY, maxRetries: 0 });
const ok = (message) => console.log(`ok - node openai ${version} via gateway: ${message}`);
const expect = (condition, message) => {
  if (!condition) throw new Error(message);
};

const stream = client.responses.stream({ model: "gpt-5.4", input: "sim: text='node helper'" });
const final = await stream.finalResponse();
expect(final.output_text === "node helper", `output_text ${final.output_text}`);
ok("responses.stream().finalResponse()");

const events = [];
for await (const event of await client.responses.create({ model: "gpt-5.4", input: "sim: text='node stream' events=4", stream: true })) {
  events.push(event);
}
expect(events[0].type === "response.created" && events.at(-1).type === "response.completed", "event order");
ok(`responses.create({stream: true}): ${events.length} events`);

const plain = await client.responses.create({ model: "gpt-5.4", input: "sim: text='node non-stream'" });
expect(plain.output_text === "node non-stream", `output_text ${plain.output_text}`);
ok("non-stream responses.create()");

const ids = [];
for await (const model of client.models.list()) ids.push(model.id);
expect(ids.includes("gpt-5.4"), `models ${ids}`);
ok(`models.list(): ${ids.length} models`);

try {
  await new OpenAI({ baseURL: `${GW}/v1`, apiKey: "sk-sb-wrong", maxRetries: 0 }).responses.create({ model: "gpt-5.4", input: "hi" });
  throw new Error("a bad key was accepted");
} catch (error) {
  expect(error instanceof OpenAI.AuthenticationError && error.code === "invalid_api_key", `got ${error}`);
}
ok("bad key -> AuthenticationError (401 invalid_api_key)");

try {
  await client.responses.create({ model: "gpt-unknown", input: "hi" });
  throw new Error("an unknown model was accepted");
} catch (error) {
  expect(error instanceof OpenAI.NotFoundError && error.code === "model_not_found", `got ${error}`);
}
ok("unknown model -> NotFoundError (404 model_not_found)");
