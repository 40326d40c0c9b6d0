"""specbind's Python API (the importable name of the `specbind` distribution; the implementation
is the `generator` package). `python -m specbind` is the command line.

    import specbind

    specbind.generate("spec/pets", out="src/vendor")   # -> [specbind.Result, ...]
    specbind.check("spec/pets", out="src/vendor")      # each Result .clean when up to date

See docs/api.md."""

from generator import __version__
from generator.api import Result, check, generate
from generator.errors import SpecError

__all__ = ["Result", "SpecError", "__version__", "check", "generate"]
