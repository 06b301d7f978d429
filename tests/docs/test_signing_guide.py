"""docs/hooks/signing.md works as written (issue 15): its vector is what we send, and its
Python and Node verifiers accept our signatures and refuse others.

The snippets are taken out of the page and run as they are, so the guide cannot drift
from the code.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
from pathlib import Path

import pytest

from harness.hooks.remote.signing import Signer, sign

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "hooks" / "signing.md"
TEXT = GUIDE.read_text()
OTHER = "whsec_" + base64.b64encode(b"x" * 32).decode()


def block(language: str, containing: str) -> str:
    for code in re.findall(rf"```{language}\n(.*?)```", TEXT, re.DOTALL):
        if containing in code:
            return code
    raise AssertionError(f"no {language} block with {containing!r} in {GUIDE.name}")


def vector() -> dict[str, str]:
    lines = block("", "webhook-signature").splitlines()
    return {line[:19].strip(): line[19:] for line in lines if line.strip()}


def test_the_vector_is_what_the_worker_sends():
    v = vector()
    assert v["signed content"] == f"{v['webhook-id']}.{v['webhook-timestamp']}.{v['body']}"
    headers = sign(v["secret"], v["webhook-id"], int(v["webhook-timestamp"]), v["body"].encode())
    assert headers["webhook-signature"] == v["webhook-signature"]
    key = base64.b64decode(v["secret"].removeprefix("whsec_"))
    assert v["key (decoded)"] == f'the {len(key)} ASCII bytes "{key.decode()}"'


def fresh(secrets: list[str]) -> tuple[dict[str, str], bytes]:
    body = vector()["body"].encode()
    return Signer(secrets).headers("msg_fresh", body), body


def test_the_python_verifier_of_the_guide():
    namespace: dict[str, object] = {}
    exec(block("python", "def verify"), namespace)  # the guide's own code
    verify = namespace["verify"]
    headers, body = fresh([OTHER, vector()["secret"]])  # rotation: two signatures
    assert verify(headers, body, [vector()["secret"]]) == "msg_fresh"
    with pytest.raises(PermissionError, match="no matching signature"):
        verify(headers, body + b" ", [vector()["secret"]])
    stale = {**headers, "webhook-timestamp": str(int(headers["webhook-timestamp"]) - 301)}
    with pytest.raises(PermissionError, match="stale"):
        verify(stale, body, [vector()["secret"]])


def test_the_node_verifier_of_the_guide():
    headers, body = fresh([vector()["secret"]])
    script = (
        block("js", "function verify")
        + """
const [headers, body, secrets] = JSON.parse(process.argv[1]);
process.stdout.write(String(verify(headers, Buffer.from(body), secrets)));
"""
    )
    cases = [
        ((headers, body.decode(), [OTHER, vector()["secret"]]), "true"),
        ((headers, body.decode(), [OTHER]), "false"),
        ((headers, body.decode() + " ", [vector()["secret"]]), "false"),
    ]
    for args, expected in cases:
        out = subprocess.run(
            ["node", "-e", script, json.dumps(args)],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
        assert out == expected
