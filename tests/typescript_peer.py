"""The TypeScript binding of a spec as the generated property tests' peer binding: the command
`SPECBIND_PEER_<PACKAGE>` names (see `test_a_peer_binding_agrees` in a generated package's
tests/test_properties.py). It reads the hook's JSON Lines on stdin, one `{"definition",
"document"}` or `{"stream": [documents]}` per line, has the TypeScript package judge them all in
one Node process (`cli.js batch`, as tests/typescript_agreement.py does), and writes one line per
input: `{"valid": bool}` (strict decoding), or `{"findings": [rule IDs]}` for a stream (sorted:
a replay report keeps violations and warnings apart).

    SPECBIND_PEER_AGUI="python tests/typescript_peer.py agui" pytest generated/agui/tests/test_properties.py

The repository's conftest.py sets it so for every test run; it needs node and tsc."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import typescript_agreement as agree


def main(spec: str) -> int:
    # split on LF only: a string may hold U+2028 or U+0085, which str.splitlines() splits at
    inputs = [json.loads(line) for line in sys.stdin.buffer.read().decode("utf-8").split("\n") if line.strip()]
    jobs = []
    for i, item in enumerate(inputs):
        if "stream" in item:
            jobs.append({"id": str(i), "op": "replay", "text": agree.jsonl(item["stream"]).decode("utf-8")})
        else:
            text = json.dumps(item["document"], ensure_ascii=False)
            jobs.append({"id": str(i), "op": "validate", "definition": item["definition"], "text": text, "lenient": False})
    with tempfile.TemporaryDirectory(prefix="specbind-ts-peer-") as folder:
        answers = agree.run_batch(spec, jobs, Path(folder))
    for i, item in enumerate(inputs):
        answer = answers[str(i)]
        line = {"findings": agree.findings_of(answer)} if "stream" in item else {"valid": answer["valid"]}
        sys.stdout.write(json.dumps(line) + "\n")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in agree.SPECS:
        sys.stderr.write(f"usage: typescript_peer.py {'|'.join(agree.SPECS)}\n")
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
