// OpenAI Node SDK's chat.completions.create through the gateway: non-stream, stream (usage
// chunk, emoji stop split across upstream events) and a tool round trip.
// Usage: NODE_PATH=… node chat_check.mjs GATEWAY_URL CLIENT_KEY
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

const plain = await client.chat.completions.create({
  model: "gpt-5.4",
  messages: [{ role: "user", content: "sim: text='node chat'" }],
});
expect(plain.choices[0].message.content === "node chat", `content ${plain.choices[0].message.content}`);
expect(plain.usage.total_tokens > 0, "usage");
ok("chat.completions.create() non-stream");

const chunks = [];
const stream = await client.chat.completions.create({
  model: "gpt-5.4",
  messages: [{ role: "user", content: "sim: text='ab👍🏽cd' events=6" }],
  stop: ["👍🏽"],
  stream: true,
  stream_options: { include_usage: true },
});
for await (const chunk of stream) chunks.push(chunk);
const text = chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("");
expect(text === "ab", `streamed text ${JSON.stringify(text)}`);
expect(chunks.at(-1).usage?.total_tokens > 0, "usage chunk");
ok(`chat.completions.create({stream: true}): ${chunks.length} chunks, emoji stop cut exactly before it`);

const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }];
const messages = [{ role: "user", content: "sim: tool=get_weather args='{\"city\":\"Oslo\"}' final='node: snow'" }];
const calls = {};
for await (const chunk of await client.chat.completions.create({ model: "gpt-5.4", messages, tools, stream: true })) {
  for (const call of chunk.choices[0]?.delta?.tool_calls ?? []) {
    calls[call.index] ??= { id: call.id, type: "function", function: { name: call.function?.name, arguments: "" } };
    calls[call.index].function.arguments += call.function?.arguments ?? "";
  }
}
const call = calls[0];
expect(JSON.parse(call.function.arguments).city === "Oslo", `arguments ${call.function.arguments}`);
messages.push({ role: "assistant", content: null, tool_calls: [call] });
messages.push({ role: "tool", tool_call_id: call.id, content: "snow" });
const answer = await client.chat.completions.create({ model: "gpt-5.4", messages, tools });
expect(answer.choices[0].message.content === "node: snow", `final ${answer.choices[0].message.content}`);
ok("chat.completions streamed tool round trip (tool_calls deltas -> tool result -> answer)");
