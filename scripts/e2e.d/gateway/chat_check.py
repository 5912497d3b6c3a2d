"""OpenAI Python SDK's chat.completions.create through the gateway: non-stream, stream (with
the usage chunk and an emoji stop sequence split across upstream events), and a tool round trip.

Usage: python chat_check.py GATEWAY_URL CLIENT_KEY
"""

import json
import sys

import openai
from openai import OpenAI

GW, KEY = sys.argv[1:3]
client = OpenAI(base_url=f"{GW}/v1", api_key=KEY, max_retries=0)
PREFIX = f"python openai {openai.__version__} via gateway"


def ok(message):
    print(f"ok - {PREFIX}: {message}", flush=True)


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


plain = client.chat.completions.create(
    model="gpt-5.4",
    messages=[{"role": "system", "content": "be brief"}, {"role": "user", "content": "sim: text='chat non-stream'"}],
)
expect(plain.object == "chat.completion", f"object {plain.object}")
expect(plain.choices[0].message.content == "chat non-stream", f"content {plain.choices[0].message.content!r}")
expect(plain.choices[0].finish_reason == "stop", "finish_reason")
expect(plain.usage.total_tokens > 0, "usage")
ok("chat.completions.create() non-stream")

chunks = list(
    client.chat.completions.create(
        model="gpt-5.4",
        messages=[{"role": "user", "content": "sim: text='ab👍🏽cd' events=6"}],
        stop=["👍🏽"],
        stream=True,
        stream_options={"include_usage": True},
    )
)
text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
expect(text == "ab", f"streamed text {text!r}")
expect([c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["stop"], "finish")
expect(chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0, "usage chunk")
ok(f"chat.completions.create(stream=True): {len(chunks)} chunks, emoji stop cut exactly before it")

tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
messages = [{"role": "user", "content": "sim: tool=get_weather args='{\"city\":\"Paris\"}' final='py: sunny'"}]
first = client.chat.completions.create(model="gpt-5.4", messages=messages, tools=tools)
call = first.choices[0].message.tool_calls[0]
expect(first.choices[0].finish_reason == "tool_calls", "tool_calls finish")
expect(json.loads(call.function.arguments) == {"city": "Paris"}, f"arguments {call.function.arguments}")
messages.append(first.choices[0].message.model_dump(exclude_none=True))
messages.append({"role": "tool", "tool_call_id": call.id, "content": "sunny"})
second = client.chat.completions.create(model="gpt-5.4", messages=messages, tools=tools)
expect(second.choices[0].message.content == "py: sunny", f"final {second.choices[0].message.content!r}")
ok("chat.completions tool round trip (tool_calls -> tool result -> answer)")

try:
    client.chat.completions.create(model="gpt-5.4", messages=[{"role": "wizard", "content": "x"}])
    raise AssertionError("a bad role was accepted")
except openai.BadRequestError as error:
    expect(error.status_code == 400 and error.code == "invalid_request", f"error {error}")
ok("chat.completions with a bad role raises BadRequestError (400 invalid_request)")
