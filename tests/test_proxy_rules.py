"""`specbind proxy` with a spec's rules: every rule example of a two-party protocol, played live
by two processes through the proxy (the launcher plays one party, the child the other, each
writing its messages in the transcript's order), draws on stderr exactly the findings the
example names, as it happens; a satisfying example draws none of its rule. Courier
(tests/data/courier, a toy request/response protocol with parties of its own naming) with a
[stdio] table: nothing here is MCP."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import PYTHON, REPO, run_cli

COURIER = REPO / "tests" / "data" / "courier"
SPECBIND = str(Path(PYTHON).parent / "specbind")
# the child: writes its party's messages in order, reading one line per message of the other
PLAYER = (
    "import json, sys\n"
    "role, path = sys.argv[1], sys.argv[2]\n"
    "for entry in map(json.loads, open(path)):\n"
    "    if entry['from'] == role:\n"
    "        sys.stdout.write(json.dumps(entry['message']) + '\\n'); sys.stdout.flush()\n"
    "    elif not sys.stdin.readline():\n"
    "        break\n"
)


@pytest.fixture(scope="module")
def courier(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[str]]:
    root = tmp_path_factory.mktemp("courier")
    spec = root / "courier"
    shutil.copytree(COURIER, spec)
    parties = re.search(r"^parties (\S+) (\S+)", (spec / "courier.rules").read_text(encoding="utf-8"), re.M)
    assert parties is not None
    caller, callee = parties.groups()
    with open(spec / "binding.toml", "a", encoding="utf-8") as binding:
        binding.write(f'\n[stdio]\nframing = "lines"\nstdin = "{caller}"\nstdout = "{callee}"\n')
    out = root / "out"
    result = run_cli("generate", "--spec", spec, "--out", out)
    assert result.exit_code == 0, result.output
    return spec, out, [caller, callee]


def _examples() -> list[tuple[str, str, int, dict[str, Any]]]:
    examples = json.loads((COURIER / "rule-examples.json").read_text(encoding="utf-8"))
    return [(rule, kind, n, example) for rule, entry in sorted(examples.items()) for kind in ("violates", "satisfies")
            for n, example in enumerate(entry.get(kind, [])) if "stream" in example]


def _play(courier: tuple[Path, Path, list[str]], stream: list[dict[str, Any]], folder: Path) -> tuple[int, list[str]]:
    spec, out, (launcher, child) = courier
    path = folder / "stream.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in stream), encoding="utf-8")
    proc = subprocess.Popen([SPECBIND, "proxy", "--spec", str(spec), "--out", str(out), "--", PYTHON, "-c", PLAYER, child, str(path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    for entry in stream:
        if entry["from"] == launcher:
            proc.stdin.write((json.dumps(entry["message"]) + "\n").encode())
            proc.stdin.flush()
        elif entry["from"] == child:
            proc.stdout.readline()
    proc.stdin.close()
    status = proc.wait(60)
    return status, proc.stderr.read().decode().splitlines()


@pytest.mark.parametrize("rule,kind,n,example", _examples(), ids=lambda v: v if isinstance(v, (str, int)) else "")
def test_each_rule_example_played_live_draws_its_findings(courier: tuple[Path, Path, list[str]], tmp_path: Path, rule: str, kind: str, n: int, example: dict[str, Any]) -> None:
    parties = set(courier[2])
    if any(entry.get("from") not in parties or not isinstance(entry.get("message"), dict) for entry in example["stream"]):
        pytest.skip("an entry no party sends as a message (a malformed transcript line): replay's case, not a live session's")
    status, lines = _play(courier, example["stream"], tmp_path)
    assert status == 0, lines
    findings = sorted(line.split()[2] for line in lines if line.startswith("specbind proxy: ") and " [" in line and " message " in line)
    assert lines[-1].startswith("specbind proxy: ") and " messages (" in lines[-1], lines
    if kind == "violates":
        assert findings == sorted(example["exactly"]) if "exactly" in example else rule in findings, (findings, lines)
    else:
        assert rule not in findings, lines
