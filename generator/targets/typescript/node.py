"""Running a generated TypeScript package: build it with `tsc` (into a cache folder keyed by the
package's content, so a package is compiled once per change) and run its command line under
Node. Used by `specbind replay|validate --target typescript`, by the tests and by the
benchmark. Nothing here is needed to generate the package.

`node` is $SPECBIND_NODE or on PATH. `tsc` is $SPECBIND_TSC, or on PATH, or the TypeScript
specbind fetched before into its cache (`<cache>/node`); where none is, and npm is here, it is
fetched there once (the TypeScript version the packages are tested with, saying so on stderr); with neither, the error says
what to install."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...errors import SpecError, ToolError

TYPESCRIPT = "5.9.3"  # the compiler the generated packages are tested with (tests/node/package.json)
Progress = Callable[[str], None]


def stderr_progress(message: str) -> None:
    print(f"  ... {message}", file=sys.stderr, flush=True)


class NodeMissing(RuntimeError):
    """node or tsc is not installed here."""


def node() -> str:
    found = os.environ.get("SPECBIND_NODE") or shutil.which("node")
    if not found:
        raise NodeMissing("node is not installed: the TypeScript binding runs under Node 20 or later")
    return found


def _fetched() -> Path:
    return _cache().parent / "node" / "node_modules" / ".bin" / "tsc"


def _npm() -> str | None:
    return shutil.which("npm")


def _found_tsc() -> str | None:
    given = os.environ.get("SPECBIND_TSC")
    if given:
        return given
    on_path = shutil.which("tsc")
    if on_path:
        return on_path
    return str(_fetched()) if _fetched().exists() else None


def tsc(progress: Progress | None = stderr_progress) -> str:
    """The TypeScript compiler, fetched with npm into specbind's cache when there is none."""
    found = _found_tsc()
    if found:
        return found
    npm = _npm()
    if npm is None:
        raise NodeMissing(
            f"tsc is not installed and npm is not here to fetch it: install TypeScript (npm install -g typescript@{TYPESCRIPT}) "
            "or set SPECBIND_TSC to a tsc"
        )
    home = _fetched().parents[2]
    if progress is not None:
        progress(f"fetching TypeScript {TYPESCRIPT} with npm into {home} (once)")
    home.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [npm, "install", "--prefix", str(home), "--no-audit", "--no-fund", "--loglevel=error", f"typescript@{TYPESCRIPT}"],
        capture_output=True, text=True,
    )
    if done.returncode != 0 or not _fetched().exists():
        said = (done.stderr or done.stdout).strip().splitlines()
        raise NodeMissing(
            f"tsc is not installed and `npm install typescript@{TYPESCRIPT}` failed ({said[-1] if said else f'exit {done.returncode}'}): "
            "install TypeScript or set SPECBIND_TSC to a tsc"
        )
    return str(_fetched())


def missing() -> str | None:
    """Why the TypeScript packages cannot be built and run here (node absent, or tsc absent with
    no npm to fetch it), or None. Fetches nothing."""
    try:
        node()
    except NodeMissing as exc:
        return str(exc)
    if _found_tsc() is None and _npm() is None:
        return "tsc is not installed and npm is not here to fetch it"
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


def build(package: Path, progress: Progress | None = None) -> Path:
    """The package compiled (`<copy>/dist/...`), from the cache when its content was built
    before (`progress` hears of a compilation, which takes seconds). Raises NodeMissing, or
    RuntimeError with tsc's output when it does not compile."""
    if not (package / "package.json").is_file():
        raise SpecError(str(package), "", "not a generated TypeScript package (no package.json): run `specbind generate`")
    target = _cache() / f"{package.name}-{_digest(package)}"
    if (target / "dist" / "bin" / "cli.js").is_file():
        return target
    compiler = tsc(progress)
    if progress is not None:
        progress(f"compiling {package.name} with tsc (once per change of the package)")
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


SEMI_SPACE_MB = 8
"""V8's young-generation size (MB) for the command-line tools' Node process."""


def run_cli(built: Path, args: list[str], stdin: Any = None) -> tuple[int, list[dict[str, Any]], str]:
    """`node dist/bin/cli.js ARGS`: its exit code, its JSON lines, its stderr."""
    # a young generation of 8 MB, not V8's default 16-32 MB: the command's whole peak stays within
    # docs/limits.md's 64 MB on a megabyte of hostile input (about 5% more CPU on a 115 MB corpus)
    command = [node(), f"--max-semi-space-size={SEMI_SPACE_MB}", str(built / "dist" / "bin" / "cli.js"), *args]
    done = subprocess.run(command, stdin=stdin, capture_output=True)
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
            return build(package, stderr_progress)
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
