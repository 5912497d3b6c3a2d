"""OpenAI Python SDK WebSocket mode through the gateway: two turns on one connection, the second
continuing the first with previous_response_id and only the new input (store=false).

Usage: python ws_check.py GATEWAY_URL CLIENT_KEY [--upstream-http]

With --upstream-http (the upstream refused WebSocket, answers came over HTTP SSE) no upstream
socket holds the first turn: the second turn gets previous_response_not_found and the client
resends the full history, as official clients do.
"""

import sys

import openai
from openai import OpenAI

GW, KEY = sys.argv[1:3]
UPSTREAM_HTTP = "--upstream-http" in sys.argv[3:]
client = OpenAI(base_url=f"{GW}/v1", api_key=KEY, max_retries=0)


def turn(connection, **kwargs):
    connection.response.create(model="gpt-5.4", store=False, **kwargs)
    events = []
    for event in connection:
        events.append(event)
        if event.type in ("response.completed", "response.failed", "error"):
            break
    return events


with client.responses.connect() as connection:
    first = turn(connection, input=[{"role": "user", "content": "sim: text='first turn'"}])
    assert first[-1].type == "response.completed", [e.type for e in first]
    text = "".join(e.delta for e in first if e.type == "response.output_text.delta")
    assert text == "first turn", text
    second_input = [{"role": "user", "content": "sim: text='second turn'"}]
    second = turn(connection, previous_response_id=first[-1].response.id, input=second_input)
    if UPSTREAM_HTTP:
        assert second[-1].type == "error", [e.type for e in second]
        assert second[-1].error.code == "previous_response_not_found", second[-1]
        history = [{"role": "user", "content": "sim: text='first turn'"}, {"role": "assistant", "content": "first turn"}]
        second = turn(connection, input=history + second_input)
    assert second[-1].type == "response.completed", [e.type for e in second]
    assert "".join(e.delta for e in second if e.type == "response.output_text.delta") == "second turn"
how = "previous_response_not_found then a full resend" if UPSTREAM_HTTP else "the second with previous_response_id"
print(f"ok - python openai {openai.__version__} via gateway: responses.connect() two turns, {how}")
