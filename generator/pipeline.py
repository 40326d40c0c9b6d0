"""spec folder -> shared products -> each target's plans -> templates -> files, and the drift check
over them. Nothing here writes: `render_specs` returns the files and the ledger updates, and the
command line writes both."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .binding import CONFIG, Binding, load_binding
from .errors import SpecError, located
from .output import MANIFEST, Drift, Entry, FormatRecord, drift, manifest_bytes, sha256, write, write_all
from .products import LedgerUpdate, Products, compute, load_ir
from .render import Progress, Rendered, copy_folder, environment, finish, render_plan, template_sets
from .targets import Plan, Target, builtins, load_folder, resolve

__all__ = [
    "Drift", "SpecOutput", "discover_specs", "drift", "load_ir", "render_spec", "render_specs", "write", "write_all",
    "targets_for",
]


def discover_specs(spec_root: Path) -> list[Path]:
    found = sorted(p.parent for p in spec_root.glob(f"*/{CONFIG}"))
    if not found:
        raise SpecError(
            str(spec_root), "", f"no spec folders here (a folder holding {CONFIG}): pass --spec DIR, "
            "or make one from a schema with `specbind init SCHEMA --name NAME`"
        )
    return found


@dataclass
class SpecOutput:
    binding: Binding
    files: dict[str, bytes]
    ledger_update: LedgerUpdate | None = None
    targets: list[str] = field(default_factory=list)


def targets_for(
    binding: Binding, extra: Sequence[Path | str] = (), only: Sequence[Path | str] = ()
) -> list[tuple[Target, dict[str, Any]]]:
    """The targets a spec is generated for, each with its options from binding.toml: the
    built-in targets whose table it has, the folders its `[targets.NAME]` tables name, and the
    targets given on the command line (a built-in name or a folder); with `only`, just those
    (each a built-in name, a name the spec gives a folder, or a folder)."""
    if only:
        return [_only(binding, given) for given in only]
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


def _only(binding: Binding, given: Path | str) -> tuple[Target, dict[str, Any]]:
    if str(given) in binding.target_folders:
        folder, options = binding.target_folders[str(given)]
        return load_folder(folder, binding.display(folder)), options
    target = resolve(given)
    return target, binding.targets.get(target.name) or binding.target_options.get(target.name, {})


def _build(target: Target, products: Products, options: dict[str, Any]) -> list[Plan]:
    """The target's plans; an exception in a target's own code is located in that code."""
    try:
        return target.build(products, options)
    except SpecError:
        raise
    except Exception as exc:
        if target.origin == "built-in":
            raise  # a bug in specbind itself: the command line says so (exit 70)
        raise located(exc, f"target {target.name!r} ({target.origin}) failed in build()") from None


def _render(
    spec_dir: Path, layers: Sequence[Path], allow_new_slots: bool, extra: Sequence[Path | str], only: Sequence[Path | str]
) -> tuple[Binding, list[Rendered], LedgerUpdate | None, list[str]]:
    binding = load_binding(spec_dir)
    products = compute(binding, allow_new_slots=allow_new_slots)
    chosen = targets_for(binding, extra, only)
    # a user's folders first, then the spec's own templates, then each set's own folder
    env = environment(template_sets(t for t, _ in chosen), [*layers, *binding.templates])
    rendered = []
    for target, options in chosen:
        out = Rendered(target)
        plans = _build(target, products, options)
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
    out: Path | None = None,
    only: Sequence[Path | str] = (),
) -> list[SpecOutput]:
    """Every generated file of every spec, by path relative to the output root, each package
    with its manifest. Two specs that would write the same package are an error, not
    last-one-wins. `out`: the folder the output is meant for, whose manifests record what was
    formatted before (so unchanged files are not formatted again); `only`: these targets only."""
    staged = [_render(d, layers, allow_new_slots, targets, only) for d in spec_dirs]
    owners: dict[str, str] = {}
    for binding, rendered, _, _ in staged:
        for root in sorted({p.split("/", 1)[0] for r in rendered for p in [*r.pending, *r.done]}):
            if root in owners and owners[root] != binding.display_dir:
                raise SpecError(
                    binding.display(binding.spec_dir / CONFIG), "", f"writes the package {root!r}, which {owners[root]} writes too"
                )
            owners[root] = binding.display_dir
    files, formatted = finish([r for _, rendered, _, _ in staged for r in rendered], progress, FormatRecord(out))
    results = []
    for binding, rendered, ledger, names in staged:
        mine = {p: files[p] for p in sorted({p for r in rendered for p in [*r.pending, *r.done]})}
        results.append(SpecOutput(binding, with_manifests(binding, mine, formatted), ledger, names))
    return results


def with_manifests(binding: Binding, files: dict[str, bytes], formatted: dict[str, tuple[str, str]]) -> dict[str, bytes]:
    """The files, and in each package folder the manifest listing them."""
    base = binding.spec_dir.resolve()
    source = f"{base.parent.name}/{base.name}" if base.parent.name else base.name
    packages: dict[str, dict[str, Entry]] = {}
    for path, data in files.items():
        root, _, rel = path.partition("/")
        if rel == MANIFEST:
            raise SpecError(binding.display(binding.spec_dir / CONFIG), "", f"a target writes {path}, the name of specbind's manifest")
        rendered, formatter = formatted.get(path, (None, None))
        packages.setdefault(root, {})[rel] = Entry(sha256(data), rendered, formatter)
    manifests = {f"{root}/{MANIFEST}": manifest_bytes(source, entries) for root, entries in packages.items()}
    return dict(sorted({**files, **manifests}.items()))


def render_spec(
    spec_dir: Path, layers: Sequence[Path] = (), allow_new_slots: bool = False, targets: Sequence[Path | str] = (),
    out: Path | None = None, only: Sequence[Path | str] = (),
) -> SpecOutput:
    return render_specs([spec_dir], layers, allow_new_slots, targets, out=out, only=only)[0]
