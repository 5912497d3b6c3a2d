"""Reads the simulator's `POST /_sim/accounts` answer for an xAI account on stdin and prints the
Grok CLI `~/.grok/auth.json` holding its tokens (PROTOCOL G.2)."""

import base64
import json
import sys

tokens = json.load(sys.stdin)["tokens"]
payload = tokens["id_token"].split(".")[1]
claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
print(json.dumps({
    f"{claims['iss']}::{claims['aud']}": {
        "key": tokens["access_token"],
        "auth_mode": "oidc",
        "refresh_token": tokens["refresh_token"],
        "expires_at": tokens["expires_at"],
        "user_id": claims["sub"],
        "email": claims.get("email"),
        "team_id": claims.get("team_id"),
        "oidc_issuer": claims["iss"],
        "oidc_client_id": claims["aud"],
    }
}))
