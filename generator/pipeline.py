"""load spec -> IR -> per-target context -> templates -> files, and the drift check over them."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from .binding import CONFIG, Binding, load_binding
from .errors import SpecError
from .ir.build import build_ir
from .ir.model import IR
from .render import environment, render_target
from .schema.loader import load_schema
from .targets import builders


def discover_specs(spec_root: Path) -> list[Path]:
    found = sorted(p.parent for p in spec_root.glob(f"*/{CONFIG}"))
    if not found:
        raise SpecError(str(spec_root), "", f"no spec folders (a folder with {CONFIG})")
    return found


def load_ir(binding: Binding) -> IR:
    overlays = [(o, binding.display(o)) for o in binding.overlays]
    ir = build_ir(load_schema(binding.schema, binding.display(binding.schema), overlays))
    root = binding.root
    if root is not None and root not in ir.defs:
        raise SpecError(binding.display(binding.spec_dir / CONFIG), "[protocol].root", f"no definition named {root!r}")
    return ir


def render_spec(spec_dir: Path, template_dirs: list[Path]) -> tuple[Binding, dict[str, bytes]]:
    """Every generated file for one spec folder, by path relative to the output root."""
    binding = load_binding(spec_dir)
    ir = load_ir(binding)
    # a user's folders first, then the spec's own templates (protocol-specific modules, declared
    # as `templates = "..."` in binding.toml), then the built-in ones
    env = environment([*template_dirs, *binding.templates])
    files: dict[str, bytes] = {}
    for target, build in sorted(builders().items()):
        if target not in binding.targets:
            continue
        plan = build(binding, ir)
        files.update(render_target(target, plan, env))
    return binding, files


@dataclass
class Drift:
    changed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    diffs: dict[str, list[str]] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return not (self.changed or self.added or self.removed)


def package_roots(files: dict[str, bytes]) -> set[str]:
    return {p.split("/", 1)[0] for p in files}


def existing(out: Path, roots: set[str]) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for root in sorted(roots):
        base = out / root
        if base.is_dir():
            for p in sorted(base.rglob("*")):
                if p.is_file() and "__pycache__" not in p.parts:
                    found[p.relative_to(out).as_posix()] = p
    return found


def drift(out: Path, files: dict[str, bytes]) -> Drift:
    d = Drift()
    on_disk = existing(out, package_roots(files))
    for rel, content in sorted(files.items()):
        path = on_disk.get(rel)
        if path is None:
            d.added.append(rel)
        elif path.read_bytes() != content:
            d.changed.append(rel)
            old = path.read_bytes().decode("utf-8", "replace").splitlines()
            new = content.decode("utf-8", "replace").splitlines()
            d.diffs[rel] = list(difflib.unified_diff(old, new, f"a/{rel}", f"b/{rel}", lineterm="", n=1))
    d.removed = sorted(set(on_disk) - set(files))
    return d


def write(out: Path, files: dict[str, bytes]) -> Drift:
    """Bring `out` to exactly `files` (stale files in the generated packages are removed)."""
    d = drift(out, files)
    for rel in d.added + d.changed:
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(files[rel])
    for rel in d.removed:
        (out / rel).unlink()
    for root in package_roots(files):
        for p in sorted((out / root).rglob("*"), reverse=True):
            if p.is_dir() and not any(p.iterdir()):
                p.rmdir()
    return d
