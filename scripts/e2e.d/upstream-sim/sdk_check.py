"""OpenAI Python SDK against the upstream simulator.

Usage: python sdk_check.py SIM_URL XAI_ACCESS_TOKEN CODEX_ACCESS_TOKEN CODEX_ACCOUNT_ID
Prints one `ok - ...` line per check; any failure raises (exit status 1).
"""

import sys

import openai
from openai import OpenAI

SIM, XAI_TOKEN, CODEX_TOKEN, CODEX_ACCOUNT = sys.argv[1:5]
XAI_HEADERS = {"X-XAI-Token-Auth": "xai-grok-cli", "x-grok-client-version": "0.2.120"}
xai = OpenAI(base_url=f"{SIM}/xai/v1", api_key=XAI_TOKEN, default_headers=XAI_HEADERS, max_retries=0)
PREFIX = f"python openai {openai.__version__}"


def ok(message):
    print(f"ok - {PREFIX}: {message}", flush=True)


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


# 1. streaming create: raw events
events = list(xai.responses.create(model="grok-4.5", input="sim: text='streamed hello' events=4", stream=True))
types = [e.type for e in events]
expect(types[0] == "response.created", f"first event {types[0]}")
expect(types[-1] == "response.completed", f"last event {types[-1]}")
text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
expect(text == "streamed hello", f"deltas joined to {text!r}")
expect(events[-1].response.usage.total_tokens > 0, "usage missing")
ok(f"responses.create(stream=True) on xAI: {len(events)} events, text {text!r}")

# 2. stream helper with reasoning and a function call
with xai.responses.stream(
    model="grok-4.5",
    input="sim: reasoning=1 tool=get_weather args='{\"city\":\"Paris\"}'",
    tools=[{"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {}}}],
) as stream:
    for _ in stream:
        pass
    final = stream.get_final_response()
kinds = [item.type for item in final.output]
expect(kinds == ["reasoning", "function_call"], f"output kinds {kinds}")
expect(final.output[1].name == "get_weather", "function name")
expect(final.output[0].encrypted_content, "reasoning ciphertext missing")
ok(f"responses.stream().get_final_response() on xAI: output {kinds}")

# 3. stream helper text
with xai.responses.stream(model="grok-4.5", input="sim: text='helper text'") as stream:
    final = stream.get_final_response()
expect(final.output_text == "helper text", f"output_text {final.output_text!r}")
ok("responses.stream() text answer parsed")

# 4. non-stream create, then previous_response_id over HTTP (store defaults to true)
first = xai.responses.create(model="grok-4.5", input="sim: text='non-stream answer'")
expect(first.output_text == "non-stream answer", f"output_text {first.output_text!r}")
expect(first.object == "response", "object")
second = xai.responses.create(model="grok-4.5", input="and again", previous_response_id=first.id)
expect(second.output_text == "non-stream answer", "previous_response_id inherits the directive")
ok("non-stream responses.create() and previous_response_id on xAI")

# 5. unknown previous_response_id -> 404
try:
    xai.responses.create(model="grok-4.5", input="x", previous_response_id="resp_does_not_exist")
    raise AssertionError("expected 404")
except openai.NotFoundError as error:
    expect(error.status_code == 404, "status")
ok("unknown previous_response_id -> NotFoundError (404)")

# 6. chat completions (stream and non-stream)
chat = xai.chat.completions.create(model="grok-4.5", messages=[{"role": "user", "content": "sim: text='chat answer'"}])
expect(chat.choices[0].message.content == "chat answer", "chat content")
chunks = list(
    xai.chat.completions.create(
        model="grok-4.5",
        messages=[{"role": "user", "content": "sim: text='chat stream'"}],
        stream=True,
        stream_options={"include_usage": True},
    )
)
joined = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
expect(joined == "chat stream", f"chat stream {joined!r}")
expect(chunks[-1].usage is not None, "usage chunk")
ok("chat.completions.create (non-stream and stream) on xAI")

# 7. models
ids = [m.id for m in xai.models.list()]
expect("grok-4.5" in ids, f"models {ids}")
ok(f"models.list() on xAI: {ids}")

# 8. WebSocket client against the Codex backend (xAI's proxy has no WebSocket)
codex = OpenAI(
    base_url=f"{SIM}/backend-api/codex",
    api_key=CODEX_TOKEN,
    default_headers={"OpenAI-Beta": "responses_websockets=2026-02-06", "ChatGPT-Account-ID": CODEX_ACCOUNT},
    max_retries=0,
)
with codex.responses.connect() as connection:
    connection.response.create(
        model="gpt-5.4", input=[{"role": "user", "content": "sim: text='over websocket'"}], store=False
    )
    seen = []
    for event in connection:
        seen.append(event.type)
        if event.type in ("response.completed", "error"):
            break
    expect(seen[-1] == "response.completed", f"ws events {seen}")
ok(f"responses.connect() WebSocket on the Codex backend: {len(seen)} events")
