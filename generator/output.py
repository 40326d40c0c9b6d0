"""What `generate` owns in an output folder and how it writes there.

Every package folder generate writes holds a manifest, `.specbind-manifest.json`: each file it
wrote with its sha256 (and, for a formatted file, the sha256 of the text before formatting and
the formatter that finished it). Only the files a manifest lists are specbind's: a file it does
not list (notes, helpers, `node_modules`, `.mypy_cache`) is never deleted or overwritten, and
`check` ignores it unless it stands where an output file goes (a collision, which `generate`
refuses unless told to overwrite). A file the manifest lists that the spec no longer generates
is stale: `generate` removes it.

Writing is all or nothing: every new or changed file of the run is first written beside its
destination under a temporary name; only when all of them are written are they renamed into
place and the stale files removed. A run that fails while staging leaves every package as it
was.

The manifest is also a record of formatting: a rendered text whose hash and formatter match its
entry, with the file on disk still what the entry says, is that file (the formatter need not
run again), so `check` on a fresh clone formats nothing.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from .errors import SpecError

MANIFEST = ".specbind-manifest.json"
MANIFEST_FORMAT = 1


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def package_roots(files: dict[str, bytes]) -> set[str]:
    return {p.split("/", 1)[0] for p in files}


@dataclass(frozen=True)
class Entry:
    sha256: str
    rendered: str | None = None  # sha256 of the text before the formatter ran
    formatter: str | None = None


def manifest_bytes(source: str, entries: dict[str, Entry]) -> bytes:
    """A package's manifest: paths relative to the package folder, sorted, one file a line."""
    lines = []
    for rel in sorted(entries):
        e = entries[rel]
        fields = {"sha256": e.sha256, **({"rendered": e.rendered, "formatter": e.formatter} if e.rendered else {})}
        lines.append(f"  {json.dumps(rel, ensure_ascii=False)}: {json.dumps(fields, ensure_ascii=False)}")
    head = {"generator": "specbind", "manifest": MANIFEST_FORMAT, "source": source}
    text = "{\n" + "".join(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)},\n" for k, v in head.items())
    return (text + ' "files": {\n' + ",\n".join(lines) + "\n }\n}\n").encode("utf-8")


def read_manifest(folder: Path) -> dict[str, Entry] | None:
    """The manifest of a package folder (paths relative to it), or None when it has none. One
    that cannot be read lists nothing: specbind then owns nothing there."""
    try:
        doc = json.loads((folder / MANIFEST).read_bytes())
        files = doc["files"]
        return {
            str(rel): Entry(str(e["sha256"]), e.get("rendered"), e.get("formatter"))
            for rel, e in files.items()
            if isinstance(e, dict) and isinstance(e.get("sha256"), str)
        }
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def owned(out: Path, roots: set[str]) -> dict[str, Entry]:
    """Every file the manifests of these package folders list, by path relative to `out`."""
    found: dict[str, Entry] = {}
    for root in sorted(roots):
        for rel, entry in (read_manifest(out / root) or {}).items():
            found[f"{root}/{rel}"] = entry
    return found


class FormatRecord:
    """Formatted files recorded by the manifests under `out`: `lookup(path, text, formatter)` is
    the file on disk when its entry says it is `text` formatted by `formatter` and the file
    still has the entry's hash; otherwise None."""

    def __init__(self, out: Path | None) -> None:
        self.out = out
        self.manifests: dict[str, dict[str, Entry]] = {}

    def lookup(self, path: str, text: str, formatter: str) -> bytes | None:
        if self.out is None:
            return None
        root, _, rel = path.partition("/")
        if root not in self.manifests:
            self.manifests[root] = read_manifest(self.out / root) or {}
        entry = self.manifests[root].get(rel)
        if entry is None or entry.formatter != formatter or entry.rendered != sha256(text.encode("utf-8", "surrogatepass")):
            return None
        try:
            data = (self.out / path).read_bytes()
        except OSError:
            return None
        return data if sha256(data) == entry.sha256 else None


@dataclass
class Drift:
    changed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)  # specbind's files the spec no longer generates
    collisions: list[str] = field(default_factory=list)  # files specbind did not write, where output goes
    diffs: dict[str, list[str]] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return not (self.changed or self.added or self.removed or self.collisions)


def drift(out: Path, files: dict[str, bytes]) -> Drift:
    """How `out` differs from `files`, looking only at what specbind owns there and where its
    output goes."""
    d = Drift()
    mine = owned(out, package_roots(files))
    for rel, content in sorted(files.items()):
        path = out / rel
        try:
            present = path.read_bytes() if path.is_file() else None
        except OSError:
            present = None
        if present is None:
            d.added.append(rel)
        elif present != content:
            if rel in mine or rel.endswith("/" + MANIFEST):
                d.changed.append(rel)
                old = present.decode("utf-8", "replace").splitlines()
                new = content.decode("utf-8", "replace").splitlines()
                d.diffs[rel] = list(difflib.unified_diff(old, new, f"a/{rel}", f"b/{rel}", lineterm="", n=1))
            else:
                d.collisions.append(rel)
    d.removed = sorted(rel for rel in set(mine) - set(files) if (out / rel).is_file())
    return d


def write(out: Path, files: dict[str, bytes], force: bool = False) -> Drift:
    """Bring what specbind owns in `out` to exactly `files`; see `write_all`."""
    return write_all(out, [files], force=force)[0]


def write_all(out: Path, outputs: list[dict[str, bytes]], extra: dict[Path, bytes] | None = None, force: bool = False) -> list[Drift]:
    """Write every output of a run, all or nothing: refused before anything is written when a
    file specbind did not write stands where output goes (unless `force`); every new or changed
    file (and each `extra` file, a path -> content: a grown ledger) staged under a temporary
    name first, then renamed into place, then the stale files removed."""
    drifts = [drift(out, files) for files in outputs]
    clashes = [rel for d in drifts for rel in d.collisions]
    if clashes and not force:
        more = f" (and {len(clashes) - 1} more)" if len(clashes) > 1 else ""
        raise SpecError(
            str(out / clashes[0]), "",
            f"exists and specbind did not write it (it is not in {MANIFEST}){more}: move it away, "
            "or pass --force to overwrite such files; nothing was written",
        )
    moves = [(out / rel, files[rel]) for d, files in zip(drifts, outputs) for rel in d.added + d.changed + d.collisions]
    staged = _stage([*moves, *(extra or {}).items()])
    for tmp, dest in staged:
        os.replace(tmp, dest)
    for d in drifts:
        for rel in d.removed:
            (out / rel).unlink(missing_ok=True)
            _prune(out / rel.split("/", 1)[0], (out / rel).parent)
    return drifts


def _stage(moves: list[tuple[Path, bytes]]) -> list[tuple[Path, Path]]:
    """Each content written to a temporary file beside its destination; on any failure every
    temporary file and every folder made for them is removed again and SpecError raised."""
    staged: list[tuple[Path, Path]] = []
    made: list[Path] = []
    try:
        for dest, data in moves:
            missing = [p for p in [dest.parent, *dest.parent.parents] if not p.exists()]
            for folder in reversed(missing):
                folder.mkdir()
                made.append(folder)
            tmp = dest.with_name(f".{dest.name}.specbind-{os.getpid()}.tmp")
            staged.append((tmp, dest))
            tmp.write_bytes(data)
    except OSError as exc:
        for leftover in [*(tmp for tmp, _ in staged), *reversed(made)]:
            try:
                leftover.rmdir() if leftover in made else leftover.unlink()
            except OSError:
                pass
        where = exc.filename or (staged[-1][1] if staged else "")
        raise SpecError(str(where), "", f"cannot be written ({exc.strerror or exc}): nothing was changed") from None
    return staged


def _prune(root: Path, folder: Path) -> None:
    """Remove the folders emptied by removing stale files, up to the package folder."""
    while folder != root and root in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent
