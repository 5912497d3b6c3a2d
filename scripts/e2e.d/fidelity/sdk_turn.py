"""One streamed Responses turn through the gateway with the pinned OpenAI Python SDK.

usage: sdk_turn.py BASE_URL KEY MODEL PROMPT

`client.responses.create(model=..., input=..., stream=True)` against BASE_URL/v1, as an SDK
user writes it. Prints the answer text; exits 1 when the stream does not end in
`response.completed` or the text deltas do not add up to the completed message.
"""

import sys

from openai import OpenAI


def main():
    base_url, key, model, prompt = sys.argv[1:5]
    client = OpenAI(base_url=f"{base_url}/v1", api_key=key, max_retries=0, timeout=60)
    deltas, completed = [], None
    for event in client.responses.create(model=model, input=prompt, stream=True):
        if event.type == "response.output_text.delta":
            deltas.append(event.delta)
        elif event.type == "response.completed":
            completed = event.response
    if completed is None:
        sys.exit("the stream ended without response.completed")
    if completed.output_text != "".join(deltas):
        sys.exit(f"deltas {''.join(deltas)!r} differ from the completed text {completed.output_text!r}")
    print(completed.output_text)


if __name__ == "__main__":
    main()
