"""Targets: the output languages and formats specbind generates for, registered, not wired in.

A target is a `Target`: a context builder (shared products + the spec's options for the target
-> one `Plan` per template set it renders), its template folder, an optional folder of fixed
runtime modules copied into every package, an optional formatter, and its symbol decisions
(names, reserved words, types), which live in its context module. Built-in targets are the
packages under this folder named in BUILTIN; any other is a folder holding `target.py` (which
defines `TARGET`) and `templates/`, named by a spec's binding.toml (`[targets.NAME] from =
"folder"`) or on the command line (`--target FOLDER`). docs/targets.md walks through one.

Built-in targets are found, not listed: every package under this folder that defines TARGET is
one, so adding a language adds a folder and edits nothing here.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import SpecError

if TYPE_CHECKING:
    from ..products import Products

TARGET_MODULE = "target.py"


def builtin_names() -> tuple[str, ...]:
    """The built-in targets: the packages beside this module."""
    here = Path(__file__).resolve().parent
    return tuple(sorted(p.name for p in here.iterdir() if (p / "__init__.py").is_file() and not p.name.startswith("_")))


BUILTIN = builtin_names()


@dataclass(frozen=True)
class Data:
    """An output that is data, not code: written as given."""

    path: str
    content: bytes


@dataclass(frozen=True)
class Plan:
    """One template set a target renders: the folder of templates (`templates`, a name the
    template loader knows: the target's own, or another set of its), where its files go
    (`package_dir`, relative to the output root), the context every template there is rendered
    with, and data files written as given."""

    package_dir: str
    context: dict[str, Any]
    data: tuple[Data, ...] = ()
    templates: str = ""  # default: the target's name
    # sets of the target's runtime folder (`runtime/<set>/`) copied into package_dir, each file
    # with the target's banner in front
    runtime: tuple[str, ...] = ()


Builder = Callable[["Products", dict[str, Any]], list[Plan]]
Formatter = Callable[[str, str], str]  # (output path, text) -> formatted text
Banner = Callable[[dict[str, Any], str], str]  # (plan context, output path) -> text put before a runtime file


@dataclass(frozen=True)
class Target:
    name: str
    description: str
    build: Builder
    templates: Path  # the folder of its templates (what `templates/<name>/` is for built-ins)
    runtime: Path | None = None  # fixed modules copied into every package, banner prepended
    formatter: Formatter | None = None
    formatter_id: str = ""  # what makes formatted output differ (the formatter and its version)
    language: str = ""  # what its formatter parses, for messages ("renders invalid Python")
    banner: Banner | None = None
    # other template sets it renders, by name -> folder (a built-in target's `templates/proto`)
    template_sets: dict[str, Path] = field(default_factory=dict)
    origin: str = "built-in"
    # the tool commands on this target's binding (`specbind replay|validate --target NAME`):
    # an object with `replay(spec_dir, out, fmt, after, files)` and `validate(spec_dir, out,
    # definition, lenient, files)`, each returning the JSON objects the command prints, one per
    # file; None: the target's binding is not run by the command line
    tools: Any = None


def builtin(name: str) -> Target:
    module = importlib.import_module(f"{__name__}.{name}")
    target: Target = module.TARGET
    return target


def builtins() -> dict[str, Target]:
    return {name: builtin(name) for name in BUILTIN}


def resolve(value: str | Path) -> Target:
    """A target given on the command line: a built-in name, or a folder holding target.py. A
    built-in name always means the built-in target, whatever folders the working directory
    holds (`./NAME` names a folder of that name)."""
    if isinstance(value, str) and value in BUILTIN:
        return builtin(value)
    path = Path(value)
    if (path / TARGET_MODULE).is_file() or path.is_dir():
        return load_folder(path)
    raise SpecError(str(value), "", f"not a target: neither a built-in one ({', '.join(BUILTIN)}) nor a folder with {TARGET_MODULE}")


def load_folder(folder: Path, shown: str | None = None) -> Target:
    """A target defined outside the generator: `folder/target.py` defines TARGET."""
    shown = shown or str(folder)
    path = folder / TARGET_MODULE
    if not path.is_file():
        raise SpecError(shown, "", f"not a target folder: it has no {TARGET_MODULE} (a module defining TARGET)")
    name = f"specbind_target_{abs(hash(str(path.resolve())))}"
    if name in sys.modules:
        module = sys.modules[name]
    else:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except SpecError:
            raise
        except Exception as exc:  # a user's module: whatever it raises, say where
            del sys.modules[name]
            raise SpecError(f"{shown}/{TARGET_MODULE}", "", f"cannot be loaded: {type(exc).__name__}: {exc}") from None
    target = getattr(module, "TARGET", None)
    if not isinstance(target, Target):
        raise SpecError(f"{shown}/{TARGET_MODULE}", "", "defines no TARGET (a generator.targets.Target)")
    if not target.templates.is_dir():
        raise SpecError(f"{shown}/{TARGET_MODULE}", "", f"TARGET.templates {target.templates} is not a folder")
    return Target(**{**vars(target), "origin": shown})


__all__ = ["BUILTIN", "Builder", "Data", "Formatter", "Plan", "Target", "builtin", "builtin_names", "builtins", "load_folder", "resolve"]
