"""OpenAI Python SDK through the gateway: stream helper, streaming and non-stream create, a tool
round trip, models.list, and the errors it raises for a bad key and an unknown model.

Usage: python sdk_check.py GATEWAY_URL CLIENT_KEY
"""

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


with client.responses.stream(model="gpt-5.4", input="sim: text='helper through the gateway'") as stream:
    final = stream.get_final_response()
expect(final.output_text == "helper through the gateway", f"output_text {final.output_text!r}")
ok("responses.stream().get_final_response()")

events = list(client.responses.create(model="gpt-5.4", input="sim: text='streamed' events=5", stream=True))
expect(events[0].type == "response.created" and events[-1].type == "response.completed", "event order")
expect("".join(e.delta for e in events if e.type == "response.output_text.delta") == "streamed", "deltas")
ok(f"responses.create(stream=True): {len(events)} events")

plain = client.responses.create(model="gpt-5.4", input="sim: text='non-stream through the gateway'")
expect(plain.output_text == "non-stream through the gateway", f"output_text {plain.output_text!r}")
expect(plain.usage.total_tokens > 0, "usage")
ok("non-stream responses.create()")

tools = [{"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]
question = {"role": "user", "content": "sim: tool=get_weather args='{\"city\":\"Paris\"}' final='Sunny in Paris'"}
first = client.responses.create(model="gpt-5.4", input=[question], tools=tools)
calls = [item for item in first.output if item.type == "function_call"]
expect(len(calls) == 1 and calls[0].name == "get_weather", f"output {[i.type for i in first.output]}")
second = client.responses.create(
    model="gpt-5.4",
    input=[question, *[item.model_dump(exclude_none=True) for item in first.output],
           {"type": "function_call_output", "call_id": calls[0].call_id, "output": "20C"}],
    tools=tools,
)
expect(second.output_text == "Sunny in Paris", f"final {second.output_text!r}")
ok("tool round trip (function_call -> function_call_output -> final answer)")

ids = [model.id for model in client.models.list()]
expect("gpt-5.4" in ids, f"models {ids}")
ok(f"models.list(): {len(ids)} models")

try:
    OpenAI(base_url=f"{GW}/v1", api_key="sk-sb-wrong", max_retries=0).responses.create(model="gpt-5.4", input="hi")
    raise AssertionError("a bad key was accepted")
except openai.AuthenticationError as error:
    expect(error.status_code == 401 and error.code == "invalid_api_key", f"{error.status_code} {error.code}")
ok("bad key -> AuthenticationError (401 invalid_api_key)")

try:
    client.responses.create(model="gpt-unknown", input="hi")
    raise AssertionError("an unknown model was accepted")
except openai.NotFoundError as error:
    expect(error.code == "model_not_found", f"code {error.code}")
ok("unknown model -> NotFoundError (404 model_not_found)")
