"""Writes spec/agui/proto-golden.json: events, each with the bytes the official encoder
(@ag-ui/proto 1.0.0, installed in tests/node by `make` setup) produces for it. The generated
tests hold specbind's codec to these bytes; tests/test_proto_interop.py checks the file is
still what the peer produces.

    .venv/bin/python tests/proto_golden.py     # rewrites spec/agui/proto-golden.json
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PEER = REPO / "tests" / "proto_peer.cjs"
GOLDEN = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "spec" / "agui" / "proto-golden.json"


def selection() -> list[dict[str, Any]]:
    """One valid schema fixture per event definition (its first, by name), plus every valid
    fixture of the Event union: the events the frames pin."""
    root = REPO / "spec" / "agui" / "fixtures"
    chosen: list[dict[str, Any]] = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and p.name.endswith("Event")):
        valid = sorted((folder / "valid").glob("*.json"))
        if valid:
            doc = json.loads(valid[0].read_text(encoding="utf-8"))
            chosen.append({"name": f"{folder.name}/valid/{valid[0].stem}", "definition": "Event", "document": doc})
    return chosen


def peer(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    lines = "".join(json.dumps(r) + "\n" for r in requests)
    proc = subprocess.run(["node", str(PEER), "ops"], input=lines, capture_output=True, text=True, check=True)
    return [json.loads(line) for line in proc.stdout.splitlines()]


def frames() -> list[dict[str, Any]]:
    chosen = selection()
    answers = peer([{"op": "encode", "event": c["document"]} for c in chosen])
    out = []
    for c, a in zip(chosen, answers):
        if "hex" not in a or a.get("warnings"):
            raise SystemExit(f"{c['name']}: the peer did not encode it cleanly: {a}")
        out.append({**c, "hex": a["hex"]})
    return out


def main() -> None:
    doc = {
        "description": "Events with the bytes @ag-ui/proto 1.0.0 encodes them to (tests/proto_golden.py).",
        "encoder": "@ag-ui/proto@1.0.0",
        "frames": frames(),
    }
    GOLDEN.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{GOLDEN}: {len(doc['frames'])} frames", file=sys.stderr)


if __name__ == "__main__":
    main()
