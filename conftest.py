"""The repository's own test run: TypeScript from tests/node; the generated packages' peer-binding hook
(`test_a_peer_binding_agrees` in each package's tests/test_properties.py) runs with the TypeScript
binding of the same spec as the peer (tests/typescript_peer.py), so it is exercised on every
`make test` rather than skipped. A vendored copy of a package has no such peer and skips it,
saying how to set one."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent
sys.path.append(str(REPO / "tests"))
import typescript_agreement  # noqa: E402,F401 - sets SPECBIND_TSC to the tests' own TypeScript compiler


def _spec_of(package: str) -> str | None:
    """The spec folder whose Python package is `package`, from the agreement tests' own table."""
    from typescript_agreement import SPECS

    return next((spec for spec, (python, _) in SPECS.items() if python == package), None)


@pytest.fixture(autouse=True)
def _typescript_peer(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.originalname != "test_a_peer_binding_agrees":
        return
    path = Path(str(request.node.path))
    package = path.parents[1].name
    spec = _spec_of(package) if REPO / "generated" in path.parents else None
    if spec is None:
        return
    from generator.targets.typescript import node as ts_node

    reason = ts_node.missing()
    if reason is not None:
        pytest.skip(f"SKIPPED LOUDLY: {reason}, so the TypeScript peer binding cannot run")
    command = shlex.join([sys.executable, str(REPO / "tests" / "typescript_peer.py"), spec])
    monkeypatch.setenv(f"SPECBIND_PEER_{package.upper()}", command)
