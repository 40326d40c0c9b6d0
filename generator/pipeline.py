"""spec folder -> shared products -> each target's plans -> templates -> files, and the drift check
over them. Nothing here writes: `render_specs` returns the files and the ledger updates, and the
command line writes both."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .binding import CONFIG, Binding, load_binding
from .errors import SpecError
from .products import LedgerUpdate, compute, load_ir
from .render import Progress, Rendered, copy_folder, environment, finish, render_plan, template_sets
from .targets import Target, builtins, load_folder, resolve

__all__ = ["SpecOutput", "discover_specs", "drift", "load_ir", "render_spec", "render_specs", "write", "targets_for"]


def discover_specs(spec_root: Path) -> list[Path]:
    found = sorted(p.parent for p in spec_root.glob(f"*/{CONFIG}"))
    if not found:
        raise SpecError(str(spec_root), "", f"no spec folders (a folder with {CONFIG})")
    return found


@dataclass
class SpecOutput:
    binding: Binding
    files: dict[str, bytes]
    ledger_update: LedgerUpdate | None = None
    targets: list[str] = field(default_factory=list)


def targets_for(binding: Binding, extra: Sequence[Path | str] = ()) -> list[tuple[Target, dict[str, Any]]]:
    """The targets a spec is generated for, each with its options from binding.toml: the
    built-in targets whose table it has, the folders its `[targets.NAME]` tables name, and the
    targets given on the command line (a built-in name or a folder)."""
    known = builtins()
    chosen: dict[str, tuple[Target, dict[str, Any]]] = {}
    for name, options in binding.targets.items():
        if name in known:
            chosen[name] = (known[name], options)
    for name, (folder, options) in binding.target_folders.items():
        target = load_folder(folder, binding.display(folder))
        if target.name != name:
            raise SpecError(binding.display(binding.spec_dir / CONFIG), f"[targets.{name}]", f"the folder defines target {target.name!r}")
        chosen[name] = (target, options)
    for given in extra:
        target = resolve(given)
        options = binding.targets.get(target.name) or binding.target_options.get(target.name, {})
        chosen[target.name] = (target, options)
    if not chosen:
        raise SpecError(binding.display(binding.spec_dir / CONFIG), "", "names no target: add a [python] table (package = \"...\")")
    return [chosen[n] for n in sorted(chosen)]


def _render(spec_dir: Path, layers: Sequence[Path], allow_new_slots: bool, extra: Sequence[Path | str]) -> tuple[Binding, list[Rendered], LedgerUpdate | None, list[str]]:
    binding = load_binding(spec_dir)
    products = compute(binding, allow_new_slots=allow_new_slots)
    chosen = targets_for(binding, extra)
    # a user's folders first, then the spec's own templates, then each set's own folder
    env = environment(template_sets(t for t, _ in chosen), [*layers, *binding.templates])
    rendered = []
    for target, options in chosen:
        out = Rendered(target)
        plans = target.build(products, options)
        for plan in plans:
            render_plan(target, plan, env, out)
        for folder in binding.runtime:  # the spec's own fixed modules, into the target's package
            if plans and (folder / target.name).is_dir():
                copy_folder(target, plans[0], folder / target.name, out)
        rendered.append(out)
    return binding, rendered, products.ledger_update, [t.name for t, _ in chosen]


def render_specs(
    spec_dirs: Sequence[Path],
    layers: Sequence[Path] = (),
    allow_new_slots: bool = False,
    targets: Sequence[Path | str] = (),
    progress: Progress | None = None,
) -> list[SpecOutput]:
    """Every generated file of every spec, by path relative to the output root. Two specs that
    would write the same package are an error, not last-one-wins."""
    staged = [_render(d, layers, allow_new_slots, targets) for d in spec_dirs]
    owners: dict[str, str] = {}
    for binding, rendered, _, _ in staged:
        for root in sorted({p.split("/", 1)[0] for r in rendered for p in [*r.pending, *r.done]}):
            if root in owners and owners[root] != binding.display_dir:
                raise SpecError(
                    binding.display(binding.spec_dir / CONFIG), "", f"writes the package {root!r}, which {owners[root]} writes too"
                )
            owners[root] = binding.display_dir
    files = finish([r for _, rendered, _, _ in staged for r in rendered], progress)
    out = []
    for binding, rendered, ledger, names in staged:
        mine = {p for r in rendered for p in [*r.pending, *r.done]}
        out.append(SpecOutput(binding, {p: files[p] for p in sorted(mine)}, ledger, names))
    return out


def render_spec(spec_dir: Path, layers: Sequence[Path] = (), allow_new_slots: bool = False, targets: Sequence[Path | str] = ()) -> SpecOutput:
    return render_specs([spec_dir], layers, allow_new_slots, targets)[0]


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
