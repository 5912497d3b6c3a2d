"""With every account's quota exhausted, both SDKs' users see 503 no_available_account.

Usage: python exhausted_check.py GATEWAY_URL CLIENT_KEY
"""

import sys

import openai
from openai import OpenAI

GW, KEY = sys.argv[1:3]
client = OpenAI(base_url=f"{GW}/v1", api_key=KEY, max_retries=0)
try:
    client.responses.create(model="gpt-5.4", input="hi")
    raise AssertionError("an exhausted pool answered")
except openai.APIStatusError as error:
    if error.status_code != 503 or error.code != "no_available_account":
        raise AssertionError(f"got {error.status_code} {error.code}") from error
    retry_after = error.response.headers.get("retry-after")
    if not retry_after:
        raise AssertionError("no Retry-After") from error
print(f"ok - python openai {openai.__version__} via gateway: exhausted pool -> 503 no_available_account (Retry-After {retry_after})")
