"""The fidelity diff: Codex's own request (recorded by the simulator) against the gateway's.

usage: diff.py DIRECT.json GATEWAY.json ALLOW-LIST.txt SECTION

DIRECT is Codex's turn straight to the simulator; GATEWAY the upstream turn the gateway sent,
for Codex as its client (SECTION `codex`) or for an OpenAI SDK client's turn (SECTION `sdk`).
Each JSON file is one request as `GET /_sim/requests` records it (`headers` as [name, value]
pairs, `body` as text). Compared:
- header names: present in one and not the other;
- header values, order-independent, after ids are normalised (UUIDs -> <uuid>, long hex or
  base64url runs -> <id>, integers past 10^12 -> <unix-ms>): two Codex runs differ in their session, thread and request ids,
  not in their shape;
- top-level body fields: names, their order, and their values (normalised the same way).
- header order of the names both send (`host` and `content-length` left out), as HTTP/2 shows it;
  `content-length` by presence, not value (the body's fields are compared instead).
Never allow-listed: each request names one installation id wherever it names one (header,
`client_metadata`, the JSON inside `x-codex-turn-metadata`), so a client's id cannot ride along
beside the account's; and the gateway's User-Agent carries Codex's version and platform.
Every difference must match an allow-list line `KIND NAME WHAT` (KIND header|body, WHAT
value|missing|extra|order; `*` as NAME for order) in the file's `[SECTION]` (a line `[codex]`
or `[sdk]` starts a section; each comparison reads only its own, so a difference allowed for
one client's turn is never allowed for the other's). Exit 1 when one does not; allow-list lines
that matched nothing are reported (a stale entry is a finding too) but do not fail.
"""

import json
import re
import sys

UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
LONG_ID = re.compile(r"[A-Za-z0-9_\-]{32,}")


def normalise(value):
    if isinstance(value, str):
        if value.lstrip().startswith("{"):
            try:
                return json.dumps(normalise(json.loads(value)), sort_keys=True)
            except ValueError:
                pass
        return LONG_ID.sub("<id>", UUID.sub("<uuid>", value))
    if isinstance(value, list):
        return [normalise(v) for v in value]
    if isinstance(value, dict):
        return {k: normalise(v) for k, v in value.items()}
    if isinstance(value, int) and not isinstance(value, bool) and value >= 10**12:
        return "<unix-ms>"
    return value


def header_value(raw):
    """A header value; a JSON value (x-codex-turn-metadata) is compared as JSON."""
    try:
        parsed = json.loads(raw)
    except ValueError:
        return normalise(raw)
    return normalise(parsed) if isinstance(parsed, (dict, list)) else normalise(raw)


def headers_of(request):
    out = {}
    for name, value in request["headers"]:
        out.setdefault(name.lower(), []).append(value)
    return {name: sorted(json.dumps(header_value(v), sort_keys=True) for v in values) for name, values in out.items()}


SECTIONS = ("codex", "sdk")
SECTION_LINE = re.compile(r"^\[([a-z]+)\]$")


def load_allow_list(path, wanted):
    """The entries of section `wanted`: {(kind, name, what): reason}."""
    allowed = {}
    section = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            header = SECTION_LINE.match(text)
            if header:
                if header.group(1) not in SECTIONS:
                    sys.exit(f"{path}:{number}: unknown section `{text}` (expected one of {SECTIONS})")
                section = header.group(1)
                continue
            if section is None:
                sys.exit(f"{path}:{number}: an entry before the first `[section]` line")
            if section != wanted:
                continue
            parts = text.split()
            if len(parts) != 3 or parts[0] not in ("header", "body") or parts[2] not in ("value", "missing", "extra", "order"):
                sys.exit(f"{path}:{number}: expected `header|body NAME value|missing|extra|order`")
            allowed[tuple(parts)] = line.split("#", 1)[1].strip() if "#" in line else ""
    return allowed


HOP_HEADERS = {"host", "content-length"}
# Compared by presence only: the length follows the body (its fields are compared one by one),
# and a compressed body has the length of its frame.
LENGTH_HEADERS = {"content-length"}
UA = re.compile(r"^([^/]+)/(\S+) \(([^)]*)\) (\S+)")


def installation_ids(request):
    """Every installation id a request names, wherever it names one."""
    found = set()

    def visit(value):
        if isinstance(value, dict):
            for key, inner in value.items():
                if "installationid" in key.lower().replace("-", "").replace("_", "") and isinstance(inner, str):
                    found.add(inner)
                else:
                    visit(inner)
        elif isinstance(value, list):
            for inner in value:
                visit(inner)
        elif isinstance(value, str) and value.lstrip().startswith("{"):
            try:
                visit(json.loads(value))
            except ValueError:
                pass

    visit({name: value for name, value in request["headers"]})
    visit(json.loads(request["body"]).get("client_metadata"))
    return found


def invariants(direct, gateway):
    broken = []
    for who, request in (("Codex", direct), ("gateway", gateway)):
        ids = installation_ids(request)
        if len(ids) > 1:
            broken.append(f"the {who} request names {len(ids)} different installation ids: {sorted(ids)}")
    ua = lambda r: next((v for n, v in r["headers"] if n.lower() == "user-agent"), "")
    d, g = UA.match(ua(direct)), UA.match(ua(gateway))
    if not d or not g or d.group(2, 3, 4) != g.group(2, 3, 4):
        broken.append(f"user agents differ in version/platform/terminal: Codex `{ua(direct)}` / gateway `{ua(gateway)}`")
    return broken


def differences(direct, gateway):
    found = []
    dh, gh = headers_of(direct), headers_of(gateway)
    order = lambda r, other: [n.lower() for n, _ in r["headers"] if n.lower() in other and n.lower() not in HOP_HEADERS]
    if order(direct, gh) != order(gateway, dh):
        found.append((("header", "*", "order"), f"header order: Codex {order(direct, gh)} / gateway {order(gateway, dh)}"))
    for name in sorted(set(dh) | set(gh)):
        if name not in gh:
            found.append((("header", name, "missing"), f"Codex sends `{name}: {dh[name]}`, the gateway does not"))
        elif name not in dh:
            found.append((("header", name, "extra"), f"the gateway sends `{name}: {gh[name]}`, Codex does not"))
        elif dh[name] != gh[name] and name not in LENGTH_HEADERS:
            found.append((("header", name, "value"), f"`{name}`: Codex {dh[name]} / gateway {gh[name]}"))
    db, gb = json.loads(direct["body"]), json.loads(gateway["body"])
    for name in sorted(set(db) | set(gb)):
        if name not in gb:
            found.append((("body", name, "missing"), f"Codex sends body field `{name}`, the gateway does not"))
        elif name not in db:
            found.append((("body", name, "extra"), f"the gateway sends body field `{name}`, Codex does not"))
        elif normalise(db[name]) != normalise(gb[name]):
            shown = lambda v: json.dumps(normalise(v))[:300]
            found.append((("body", name, "value"), f"body `{name}`: Codex {shown(db[name])} / gateway {shown(gb[name])}"))
    common = [k for k in db if k in gb]
    if common != [k for k in gb if k in db]:
        found.append((("body", "*", "order"), f"body field order: Codex {list(db)} / gateway {list(gb)}"))
    return found


def main():
    if len(sys.argv) != 5 or sys.argv[4] not in SECTIONS:
        sys.exit(f"usage: diff.py DIRECT.json GATEWAY.json ALLOW-LIST.txt {'|'.join(SECTIONS)}")
    direct, gateway = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:3])
    allowed = load_allow_list(sys.argv[3], sys.argv[4])
    used = set()
    unlisted = 0
    for text in invariants(direct, gateway):
        unlisted += 1
        print(f"  BROKEN: {text}")
    for key, text in differences(direct, gateway):
        if key in allowed:
            used.add(key)
            print(f"  allowed: {text}  [{allowed[key]}]")
        else:
            unlisted += 1
            print(f"  NOT ALLOWED: {text}")
    for key in sorted(set(allowed) - used):
        print(f"  note: allow-list entry {' '.join(key)} matched no difference")
    names = sorted(n for n, _ in direct["headers"])
    print(f"  compared {len(names)} Codex headers and {len(json.loads(direct['body']))} body fields")
    sys.exit(1 if unlisted else 0)


if __name__ == "__main__":
    main()
