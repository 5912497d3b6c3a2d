// OpenAI Node SDK against the upstream simulator.
// Usage: NODE_PATH=<node_modules> node sdk_check.mjs SIM_URL XAI_ACCESS_TOKEN CODEX_ACCESS_TOKEN CODEX_ACCOUNT_ID
// Prints one `ok - ...` line per check; any failure exits non-zero.
import { createRequire } from 'node:module';

const require = createRequire(process.env.NODE_PATH + '/');
const OpenAI = require('openai').default ?? require('openai');
const { ResponsesWS } = require('openai/resources/responses/ws');
const { VERSION: version } = require('openai/version');

const [SIM, XAI_TOKEN, CODEX_TOKEN, CODEX_ACCOUNT] = process.argv.slice(2);
const PREFIX = `node openai ${version}`;
const ok = (message) => console.log(`ok - ${PREFIX}: ${message}`);
const expect = (condition, message) => {
  if (!condition) throw new Error(message);
};

const xai = new OpenAI({
  baseURL: `${SIM}/xai/v1`,
  apiKey: XAI_TOKEN,
  maxRetries: 0,
  defaultHeaders: { 'X-XAI-Token-Auth': 'xai-grok-cli', 'x-grok-client-version': '0.2.120' },
});

// 1. streaming create
const events = [];
for await (const event of await xai.responses.create({ model: 'grok-4.5', input: "sim: text='node stream' events=3", stream: true })) {
  events.push(event);
}
const text = events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('');
expect(events[0].type === 'response.created', `first ${events[0].type}`);
expect(events.at(-1).type === 'response.completed', `last ${events.at(-1).type}`);
expect(text === 'node stream', `text ${text}`);
ok(`responses.create({stream: true}) on xAI: ${events.length} events, text '${text}'`);

// 2. the stream helper refuses xAI's extra events (ping, response.doom_loop_check): a gateway
//    in front of xAI must drop them. With them switched off the helper parses the stream.
let refused = null;
try {
  await xai.responses.stream({ model: 'grok-4.5', input: "sim: text='raw xai'" }).finalResponse();
} catch (error) {
  refused = error;
}
expect(refused && /Unhandled response stream event/.test(String(refused)), `helper accepted raw xAI extras: ${refused}`);
ok('responses.stream() rejects raw xAI ping/doom_loop_check events (the gateway must filter them)');

const stream = xai.responses.stream({
  model: 'grok-4.5',
  input: `sim: reasoning=1 xai_extras=0 tool=get_weather args='{"city":"Paris"}'`,
  tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false }],
});
const final = await stream.finalResponse();
const kinds = final.output.map((item) => item.type);
expect(JSON.stringify(kinds) === '["reasoning","function_call"]', `kinds ${kinds}`);
ok(`responses.stream().finalResponse() on xAI: output ${kinds}`);

// 3. stream helper text + non-stream create
const helper = await xai.responses.stream({ model: 'grok-4.5', input: "sim: text='helper text' xai_extras=0" }).finalResponse();
expect(helper.output_text === 'helper text', `output_text ${helper.output_text}`);
const plain = await xai.responses.create({ model: 'grok-4.5', input: "sim: text='plain answer'" });
expect(plain.output_text === 'plain answer', `plain ${plain.output_text}`);
const next = await xai.responses.create({ model: 'grok-4.5', input: 'more', previous_response_id: plain.id });
expect(next.output_text === 'plain answer', 'previous_response_id inherits the directive');
ok('responses.stream() text, non-stream responses.create() and previous_response_id on xAI');

// 4. chat completions stream
let chat = '';
for await (const chunk of await xai.chat.completions.create({
  model: 'grok-4.5',
  messages: [{ role: 'user', content: "sim: text='node chat'" }],
  stream: true,
})) {
  chat += chunk.choices[0]?.delta?.content ?? '';
}
expect(chat === 'node chat', `chat ${chat}`);
ok('chat.completions.create({stream: true}) on xAI');

// 5. WebSocket client (ResponsesWS) against the Codex backend
const codex = new OpenAI({ baseURL: `${SIM}/backend-api/codex`, apiKey: CODEX_TOKEN, maxRetries: 0 });
const ws = new ResponsesWS(codex, {
  headers: { 'OpenAI-Beta': 'responses_websockets=2026-02-06', 'ChatGPT-Account-ID': CODEX_ACCOUNT },
});
const seen = [];
await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`websocket timeout, saw ${seen}`)), 10000);
  ws.on('event', (event) => {
    seen.push(event.type);
    if (event.type === 'response.completed') {
      clearTimeout(timer);
      resolve();
    }
  });
  ws.on('error', (error) => {
    clearTimeout(timer);
    reject(error);
  });
  ws.send({ type: 'response.create', model: 'gpt-5.4', store: false, input: [{ role: 'user', content: "sim: text='node ws'" }] });
});
ws.close();
ok(`ResponsesWS on the Codex backend: ${seen.length} events`);
