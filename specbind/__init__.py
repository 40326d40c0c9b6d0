"""specbind's Python API (the importable name of the `specbind` distribution; the implementation
is the `generator` package). `python -m specbind` is the command line.

    import specbind

    specbind.generate("spec/pets", out="src/vendor")   # -> [specbind.Result, ...]
    specbind.check("spec/pets", out="src/vendor")      # each Result .clean when up to date

See docs/api.md."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from generator import __version__
from generator.errors import SpecError

if TYPE_CHECKING:
    from generator.api import Result, check, generate

__all__ = ["Result", "SpecError", "__version__", "check", "generate"]


def __getattr__(name: str) -> Any:
    # the pipeline (Jinja, the IR, every target) is loaded when the API is first used, not by
    # `python -m specbind`, whose commands load what each needs
    if name in ("Result", "check", "generate"):
        from generator import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
