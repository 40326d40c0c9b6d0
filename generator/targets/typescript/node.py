"""Running a generated TypeScript package: build it with `tsc` (into a cache folder keyed by the
package's content, so a package is compiled once per change) and run its command line under
Node. Used by `specbind replay|validate --target typescript`, by the tests and by the
benchmark. Nothing here is needed to generate the package.

`tsc` is the one in tests/node (installed by `make test`'s setup), or $SPECBIND_TSC, or on PATH;
`node` is $SPECBIND_NODE or on PATH."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from ...errors import SpecError, ToolError

_REPO = Path(__file__).resolve().parents[3]
_LOCAL_TSC = _REPO / "tests" / "node" / "node_modules" / ".bin" / "tsc"


class NodeMissing(RuntimeError):
    """node or tsc is not installed here."""


def node() -> str:
    found = os.environ.get("SPECBIND_NODE") or shutil.which("node")
    if not found:
        raise NodeMissing("node is not installed: the TypeScript binding runs under Node 20 or later")
    return found


def tsc() -> str:
    given = os.environ.get("SPECBIND_TSC")
    if given:
        return given
    if _LOCAL_TSC.exists():
        return str(_LOCAL_TSC)
    found = shutil.which("tsc")
    if not found:
        raise NodeMissing("tsc is not installed: `npm install --prefix tests/node` (make test does) or put TypeScript on PATH")
    return found


def missing() -> str | None:
    """Why the TypeScript packages cannot be built and run here (node or tsc absent), or None."""
    try:
        node()
        tsc()
    except NodeMissing as exc:
        return str(exc)
    return None


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file() and "dist" not in p.relative_to(folder).parts and "node_modules" not in p.parts:
            h.update(p.relative_to(folder).as_posix().encode())
            h.update(b"\0")
            h.update(p.read_bytes())
            h.update(b"\0")
    return h.hexdigest()[:20]


def _cache() -> Path:
    from ...render import cache_dir

    return cache_dir() / "typescript"


def build(package: Path) -> Path:
    """The package compiled (`<copy>/dist/...`), from the cache when its content was built
    before. Raises NodeMissing, or RuntimeError with tsc's output when it does not compile."""
    if not (package / "package.json").is_file():
        raise SpecError(str(package), "", "not a generated TypeScript package (no package.json): run `specbind generate`")
    target = _cache() / f"{package.name}-{_digest(package)}"
    if (target / "dist" / "bin" / "cli.js").is_file():
        return target
    compiler = tsc()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{package.name}-", dir=target.parent))
    try:
        work = staging / package.name
        shutil.copytree(package, work, ignore=shutil.ignore_patterns("dist", "node_modules"))
        done = subprocess.run([compiler, "-p", str(work)], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"tsc refused {package}:\n{done.stdout}{done.stderr}")
        try:
            work.rename(target)
        except OSError:  # built meanwhile by another process
            if not (target / "dist" / "bin" / "cli.js").is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def package_dir(spec_dir: Path, out: Path) -> Path:
    from ...binding import load_binding
    from .context import typescript_package

    return out / typescript_package(load_binding(spec_dir))


def run_cli(built: Path, args: list[str], stdin: Any = None) -> tuple[int, list[dict[str, Any]], str]:
    """`node dist/bin/cli.js ARGS`: its exit code, its JSON lines, its stderr."""
    done = subprocess.run([node(), str(built / "dist" / "bin" / "cli.js"), *args], stdin=stdin, capture_output=True)
    err = done.stderr.decode("utf-8", "replace")
    try:
        # JSON Lines split at LF only: JSON.stringify leaves U+2028, U+0085 and the like in
        # strings, and str.splitlines() would cut a line at them
        lines = [json.loads(line) for line in done.stdout.decode("utf-8").split("\n") if line.strip()]
    except ValueError:
        # a report cut short: node died mid-run (its stderr says why)
        raise RuntimeError(f"node {args[0]} printed a report cut short (exit {done.returncode}):\n{err}") from None
    return done.returncode, lines, err


class Tools:
    """The tool commands (`specbind replay|validate --target typescript`) on this target's
    binding: each returns the JSON objects the reference binding's commands print, one per
    file, or raises SpecError for a usage error (the message the command shows)."""

    def _built(self, spec_dir: Path, out: Path) -> Path:
        package = package_dir(spec_dir, out)
        if not (package / "package.json").is_file():
            raise SpecError(str(package), "", "does not exist: run `specbind generate`")
        try:
            return build(package)
        except NodeMissing as exc:
            raise SpecError(str(package), "", str(exc)) from None

    def _run(self, built: Path, args: list[str], files: list[str]) -> list[dict[str, Any]]:
        try:
            code, lines, err = run_cli(built, args)
        except RuntimeError as exc:
            raise ToolError("typescript", str(exc)) from None
        if code == 2 or (code not in (0, 1)):
            raise ToolError("typescript", err.strip().removeprefix("error: ") or f"node exited {code}")
        if len(lines) != len(files):  # node died before the last report (its stderr says why)
            raise ToolError("typescript", f"node printed {len(lines)} of {len(files)} reports (exit {code}):\n{err.strip()}")
        return lines

    def validate(self, spec_dir: Path, out: Path, definition: str | None, lenient: bool, files: list[str], max_errors: int | None = None) -> list[dict[str, Any]]:
        limit = ["--max-errors", str(max_errors)] if max_errors is not None else []
        args = ["validate", *(["--as", definition] if definition else []), *(["--lenient"] if lenient else []), *limit, *files]
        return self._run(self._built(spec_dir, out), args, files)

    def replay(self, spec_dir: Path, out: Path, fmt: str, after: int | None, files: list[str], max_findings: int | None = None) -> list[dict[str, Any]]:
        limit = ["--max-findings", str(max_findings)] if max_findings is not None else []
        args = ["replay", "--format", fmt, *(["--after", str(after)] if after is not None else []), *limit, *files]
        return self._run(self._built(spec_dir, out), args, files)


TOOLS = Tools()
