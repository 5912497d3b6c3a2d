"""OpenAI Python SDK through the gateway with a Grok model: the stream helper, streaming and
non-stream responses.create.

Usage: python grok_check.py GATEWAY_URL CLIENT_KEY
"""

import sys

import openai
from openai import OpenAI

GW, KEY = sys.argv[1:3]
client = OpenAI(base_url=f"{GW}/v1", api_key=KEY, max_retries=0)
PREFIX = f"python openai {openai.__version__} via gateway, grok-4.5"


def ok(message):
    print(f"ok - {PREFIX}: {message}", flush=True)


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


with client.responses.stream(model="grok-4.5", input="sim: text='grok helper'") as stream:
    final = stream.get_final_response()
expect(final.output_text == "grok helper", f"output_text {final.output_text!r}")
ok("responses.stream().get_final_response()")

events = list(client.responses.create(model="grok-4.5", input="sim: text='grok streamed' events=5", stream=True))
expect(events[0].type == "response.created" and events[-1].type == "response.completed", "event order")
expect("".join(e.delta for e in events if e.type == "response.output_text.delta") == "grok streamed", "deltas")
expect([e.sequence_number for e in events] == list(range(len(events))), "contiguous sequence numbers")
ok(f"responses.create(stream=True): {len(events)} events")

plain = client.responses.create(model="grok-4.5", input="sim: text='grok non-stream'")
expect(plain.output_text == "grok non-stream", f"output_text {plain.output_text!r}")
expect(plain.usage.total_tokens > 0, "usage")
ok("non-stream responses.create()")
