"""specbind from Python, for build steps: generate or check spec folders from code, with the
command line's semantics (the manifest, all-or-nothing writes, the drift check).

    import specbind

    for result in specbind.generate("spec/pets", out="src/vendor"):
        print(result.spec, result.packages, result.added, result.changed, result.removed)
    if not all(r.clean for r in specbind.check("spec/pets", out="src/vendor")):
        raise SystemExit("the vendored bindings are stale: run specbind generate")

Refused inputs raise `specbind.SpecError` (its `file`, `where` and `message` locate the
problem), as the command line exits 2 on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .binding import CONFIG
from .errors import SpecError
from .output import Drift
from .pipeline import SpecOutput, discover_specs, drift, render_specs, write_all

Paths = str | Path | Sequence[str | Path]


@dataclass(frozen=True)
class Result:
    """One spec folder's output: its packages (folders under `out`), how many files they hold
    and, against what was in `out`, the files added, changed and removed (specbind's own stale
    files) and the collisions (files specbind did not write where its output goes)."""

    spec: Path
    packages: tuple[str, ...]
    files: int
    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]
    collisions: tuple[str, ...]
    ledger_slots: tuple[tuple[str, int], ...] = ()  # wire slots a grown ledger gave numbers to

    @property
    def clean(self) -> bool:
        """Nothing to change: `out` is what the spec generates."""
        return not (self.added or self.changed or self.removed or self.collisions or self.ledger_slots)


def _spec_dirs(spec: Paths | None) -> list[Path]:
    if spec is None:
        return discover_specs(Path("spec"))
    if isinstance(spec, (str, Path)):
        spec = [spec]
    return [Path(s) for s in spec]


def _render(spec: Paths | None, out: Path, templates: Sequence[str | Path], targets: Sequence[str | Path],
            only_targets: Sequence[str | Path], allow_new_slots: bool) -> list[SpecOutput]:
    # what the command line's options refuse before any work (click.Path), refused here too
    for t in templates:
        if not Path(t).is_dir():
            raise SpecError(str(t), "", "templates: not a folder (one laid out like templates/: python/, typescript/...)")
    if out.exists() and not out.is_dir():
        raise SpecError(str(out), "", "out: a file, where the folder the packages are generated into goes")
    return render_specs(
        _spec_dirs(spec), [Path(t) for t in templates], allow_new_slots, list(targets), out=out, only=list(only_targets)
    )


def _result(o: SpecOutput, d: Drift) -> Result:
    slots = tuple(o.ledger_update.new_slots) if o.ledger_update is not None else ()
    return Result(
        o.binding.spec_dir, tuple(sorted({p.split("/", 1)[0] for p in o.files})), len(o.files),
        tuple(d.added), tuple(d.changed), tuple(d.removed), tuple(d.collisions), slots,
    )


def generate(
    spec: Paths | None = None,
    out: str | Path = "generated",
    *,
    templates: Sequence[str | Path] = (),
    targets: Sequence[str | Path] = (),
    only_targets: Sequence[str | Path] = (),
    allow_new_slots: bool = False,
    force: bool = False,
) -> list[Result]:
    """`specbind generate`: write the bindings of each spec folder (default: every folder
    under ./spec holding a binding.toml) into `out`, all or nothing."""
    out = Path(out)
    outputs = _render(spec, out, templates, targets, only_targets, allow_new_slots)
    ledgers = {o.ledger_update.path: o.ledger_update.text.encode("utf-8") for o in outputs if o.ledger_update is not None}
    drifts = write_all(out, [o.files for o in outputs], extra=ledgers, force=force)
    return [_result(o, d) for o, d in zip(outputs, drifts)]


def check(
    spec: Paths | None = None,
    out: str | Path = "generated",
    *,
    templates: Sequence[str | Path] = (),
    targets: Sequence[str | Path] = (),
    only_targets: Sequence[str | Path] = (),
    allow_new_slots: bool = False,
) -> list[Result]:
    """`specbind check`: what generating would change in `out`, writing nothing. A result is
    `clean` when nothing would."""
    out = Path(out)
    return [_result(o, drift(out, o.files)) for o in _render(spec, out, templates, targets, only_targets, allow_new_slots)]


__all__ = ["CONFIG", "Result", "check", "generate"]
