// OpenAI Node SDK through the gateway with a Grok model: the stream helper, streaming and
// non-stream responses.create.
// Usage: NODE_PATH=… node grok_check.mjs GATEWAY_URL CLIENT_KEY
import { createRequire } from "node:module";

const require = createRequire(process.env.NODE_PATH + "/");
const OpenAI = require("openai").default ?? require("openai");
const { VERSION: version } = require("openai/version");

const [GW, KEY] = process.argv.slice(2);
const client = new OpenAI({ baseURL: `${GW}/v1`, apiKey: KEY, maxRetries: 0 });
const PREFIX = `node openai ${version} via gateway, grok-4.5`;
const ok = (m) => console.log(`ok - ${PREFIX}: ${m}`);
const expect = (c, m) => { if (!c) throw new Error(m); };

const stream = client.responses.stream({ model: "grok-4.5", input: "sim: text='grok helper'" });
const final = await stream.finalResponse();
expect(final.output_text === "grok helper", `output_text ${final.output_text}`);
ok("responses.stream().finalResponse()");

const events = [];
for await (const e of await client.responses.create({ model: "grok-4.5", input: "sim: text='grok streamed' events=5", stream: true })) events.push(e);
expect(events[0].type === "response.created" && events.at(-1).type === "response.completed", "event order");
expect(events.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta).join("") === "grok streamed", "deltas");
ok(`responses.create({stream: true}): ${events.length} events`);

const plain = await client.responses.create({ model: "grok-4.5", input: "sim: text='grok non-stream'" });
expect(plain.output_text === "grok non-stream", `output_text ${plain.output_text}`);
ok("non-stream responses.create()");
