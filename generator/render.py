"""Plans -> files. Jinja with StrictUndefined; each template set layered (a user's folders, then
the spec's own templates, then the target's: a file replaces its namesake); output finished by
the target's formatter, through a cache keyed by content, in parallel where there is work; a
banner on every code file naming the source and its sha256."""

from __future__ import annotations

import hashlib
import json
import os
import textwrap
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from . import resources
from .errors import SpecError, TargetError, located
from .output import FormatRecord, sha256
from .targets import Formatter, Plan, Target

RENDERED = ".j2"  # rendered, suffix dropped; `*.jinja` are macros only; anything else is copied
Progress = Callable[[str], None]


def template_sets(targets: Iterable[Target]) -> dict[str, Path]:
    """Every template set the targets render, by the name templates address it with."""
    sets: dict[str, Path] = {}
    for t in targets:
        sets[t.name] = t.templates
        sets.update(t.template_sets)
    return sets


def environment(sets: dict[str, Path], layers: list[Path]) -> jinja2.Environment:
    """`layers`: folders laid out like templates/ (`<set>/<file>`), searched first to last,
    before each set's own folder."""
    loaders: dict[str, jinja2.BaseLoader] = {
        name: jinja2.ChoiceLoader([*(jinja2.FileSystemLoader(str(d / name)) for d in layers), jinja2.FileSystemLoader(str(folder))])
        for name, folder in sets.items()
    }
    jinja_cache = cache_dir() / "jinja"
    try:
        jinja_cache.mkdir(parents=True, exist_ok=True)
        bytecode: jinja2.BytecodeCache | None = jinja2.FileSystemBytecodeCache(str(jinja_cache))
    except OSError:
        bytecode = None  # an unwritable cache only costs time
    env = jinja2.Environment(
        loader=jinja2.PrefixLoader(loaders, delimiter="/"),
        bytecode_cache=bytecode,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["wrap"] = wrap
    env.filters["pystr"] = pystr
    env.filters["pyrepr"] = repr  # a JSON value (or number) as a Python literal
    env.filters["docstring"] = docstring
    env.filters["tsnumber"] = tsnumber
    return env


def tsnumber(value: int | float) -> str:
    """A number of the schema as a TypeScript literal: an integer a double cannot hold
    (past 2^53 - 1) a bigint, so that it keeps its value."""
    if type(value) is int and abs(value) > 2**53 - 1:
        return f"{value}n"
    return json.dumps(value)


def wrap(text: str | None, width: int = 88, indent: str = "") -> str:
    if not text:
        return ""
    paragraphs = [p.strip() for p in text.split("\n\n")]
    return "\n\n".join(
        textwrap.fill(" ".join(p.split()), width=width, initial_indent=indent, subsequent_indent=indent) for p in paragraphs
    )


# what str.splitlines (so Jinja's `indent`) breaks a line at and JSON leaves as it is: a property
# named "x\u2028y" was cut in two inside its literal, and the module did not parse
_LINE_BREAKS = {c: f"\\u{c:04x}" for c in (0x85, 0x2028, 0x2029)}


def pystr(text: str) -> str:
    """A Python string literal: JSON's escaping is valid Python and covers every control character."""
    return json.dumps(text, ensure_ascii=False).translate(_LINE_BREAKS)


def docstring(text: str | None, indent: int = 4, width: int = 88) -> str:
    """A triple-quoted docstring block, wrapped to the line width at the given indentation."""
    if not text:
        return ""
    pad = " " * indent
    body = wrap(text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"'), width=width - indent, indent="")
    if body.endswith('"') and (len(body) - 1 - len(body[:-1].rstrip("\\"))) % 2 == 0:
        body = body[:-1] + '\\"'  # a closing quote would merge into the docstring's own (one escaped already, from '"""', would not)
    body = "".join(c if c.isprintable() or c == "\n" else c.encode("unicode_escape").decode() for c in body)
    lines = body.split("\n")
    if len(lines) == 1 and len(lines[0]) + indent + 6 <= width:
        return f'{pad}"""{lines[0]}"""'
    return f'{pad}"""' + "\n".join((pad + ln) if ln else "" for ln in lines).lstrip() + f'\n{pad}"""'


@dataclass
class Rendered:
    """Files rendered but not yet formatted: path -> (text, the template it came from); for a
    copied runtime module, the banner put before its formatted text (`prefix`: the module is
    formatted alone, so one formatting serves every package that copies it)."""

    target: Target
    pending: dict[str, tuple[str, str]] = field(default_factory=dict)
    done: dict[str, bytes] = field(default_factory=dict)
    prefix: dict[str, str] = field(default_factory=dict)


def render_plan(target: Target, plan: Plan, env: jinja2.Environment, out: Rendered) -> None:
    """Every output file of one plan, by path relative to the output root."""
    prefix = (plan.templates or target.name) + "/"
    names = sorted(n for n in env.list_templates() if n.startswith(prefix))
    if not names:
        raise SpecError(prefix.rstrip("/"), "", f"no templates for {prefix.rstrip('/')!r}")
    for name in names:
        rel = name[len(prefix) :]
        if rel.endswith(".jinja") or "/__pycache__/" in "/" + rel:
            continue
        dest = f"{plan.package_dir}/{rel.removesuffix(RENDERED)}"
        if rel.endswith(RENDERED):
            template = None
            try:
                template = env.get_template(name)
                text = template.render(**plan.context)
            except jinja2.TemplateSyntaxError as exc:
                raise SpecError(exc.filename or name, f"line {exc.lineno}", exc.message or str(exc)) from None
            except jinja2.TemplateError as exc:
                shown = (template.filename if template else None) or name
                raise SpecError(shown, _template_line(exc, shown), str(exc)) from None
            except Exception as exc:  # a Python error while rendering: a filter, a method, a bad operand
                shown = (template.filename if template else None) or name
                error = located(exc, "rendering failed")
                raise TargetError(shown, _template_line(exc, shown), f"{type(exc).__name__}: {exc}", error.debug) from None
            if text.strip():  # a template may render nothing: the target does not need that file
                out.pending[dest] = (text, template.filename or name)
        else:
            source, _, _ = env.loader.get_source(env, name)  # type: ignore[union-attr]
            out.done[dest] = source.encode("utf-8")
    for name in plan.runtime:
        copy_runtime(target, plan, name, out)
    for d in plan.data:
        out.done[f"{plan.package_dir}/{d.path}"] = d.content


def copy_runtime(target: Target, plan: Plan, name: str, out: Rendered) -> None:
    """The fixed modules of one runtime set, into the plan's package, each with the banner."""
    if target.runtime is None or not (target.runtime / name).is_dir():
        raise SpecError(target.origin, "", f"target {target.name!r} has no runtime set {name!r}")
    copy_folder(target, plan, target.runtime / name, out)


def copy_folder(target: Target, plan: Plan, base: Path, out: Rendered) -> None:
    """Every file under `base` into the plan's package, each with the target's banner."""
    for path in sorted(base.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        rel = path.relative_to(base).as_posix()
        dest = f"{plan.package_dir}/{rel}"
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise SpecError(str(path), "", f"not UTF-8 text (byte {exc.start}): fixed modules are copied as text") from None
        banner = target.banner(plan.context, dest) if target.banner is not None else ""
        if target.formatter is None:
            text, banner = banner + text, ""
        out.pending[dest] = (text, str(path))
        if banner:
            out.prefix[dest] = banner


def _template_line(exc: BaseException, filename: str) -> str:
    """The template line a render-time error was raised at, from the traceback."""
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return f"line {line}" if line else "rendering"


# -- formatting ---------------------------------------------------------------------------------


def cache_dir() -> Path:
    root = os.environ.get("SPECBIND_CACHE")
    if root:
        return Path(root)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "specbind"


def _key(target: Target, path: str, text: str) -> str:
    h = hashlib.sha256()
    for part in (target.name, target.formatter_id, Path(path).suffix, text):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def _format_one(formatter: Formatter, path: str, text: str) -> str | BaseException:
    try:
        return formatter(path, text)
    except Exception as exc:  # black reports invalid code as several exception types
        return exc


def finish(
    rendered: list[Rendered], progress: Progress | None = None, record: FormatRecord | None = None
) -> tuple[dict[str, bytes], dict[str, tuple[str, str]]]:
    """Format every pending file (as the output folder's manifests record it, or from the cache
    where the same text was formatted before, the rest in parallel) and return all files, and
    for each formatted one the sha256 of its text before formatting and the formatter's id."""
    files: dict[str, bytes] = {}
    formatted: dict[str, tuple[str, str]] = {}
    jobs: list[tuple[Rendered, str, str, str, Path]] = []
    cache = cache_dir() / "format"
    prebuilt = resources.preformatted()
    waiting: dict[str, list[tuple[Rendered, str, str]]] = {}  # one formatting per distinct key
    for r in rendered:
        files.update(r.done)
        formatter = r.target.formatter
        for dest, (text, template) in sorted(r.pending.items()):
            prefix = r.prefix.get(dest, "")
            if formatter is None:
                files[dest] = (prefix + text).encode("utf-8")
                continue
            whole = prefix + text
            formatted[dest] = (sha256(whole.encode("utf-8", "surrogatepass")), r.target.formatter_id)
            known = record.lookup(dest, whole, r.target.formatter_id) if record is not None else None
            if known is not None:
                files[dest] = known
                continue
            shipped = prebuilt.get(r.target.formatter_id, {}).get(sha256(text.encode("utf-8", "surrogatepass"))) if prefix else None
            if shipped is not None:
                files[dest] = (prefix + shipped).encode("utf-8")
                continue
            key = _key(r.target, dest, text)
            hit = cache / key[:2] / key
            try:
                files[dest] = prefix.encode("utf-8") + hit.read_bytes()
            except OSError:
                if key not in waiting:
                    jobs.append((r, dest, text, template, hit))
                waiting.setdefault(key, []).append((r, dest, prefix))
    if not jobs:
        return files, formatted
    if progress is not None:
        progress(f"formatting {len(jobs)} file(s)")
    results = _run([(r.target.formatter, dest, text) for r, dest, text, _, _ in jobs])  # type: ignore[misc]
    for (r, dest, text, template, hit), result in zip(jobs, results):
        if isinstance(result, BaseException):
            raise SpecError(template, "", f"renders invalid {r.target.language or 'output'}: {str(result)[:300]}")
        data = result.encode("utf-8")
        for _, same, prefix in waiting[_key(r.target, dest, text)]:
            files[same] = prefix.encode("utf-8") + data
        try:
            hit.parent.mkdir(parents=True, exist_ok=True)
            tmp = hit.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(data)
            tmp.replace(hit)
        except OSError:
            pass  # an unwritable cache only costs time
    return files, formatted


def _run(jobs: list[tuple[Formatter, str, str]]) -> list[str | BaseException]:
    """Formatters in worker processes when there is enough work and they can be sent there
    (a formatter defined in a target folder loaded by path is run here)."""
    workers = min(os.cpu_count() or 1, len(jobs))
    portable = all(getattr(f, "__module__", "").startswith("generator.") for f, _, _ in jobs)
    if workers < 2 or len(jobs) < 4 or not portable:
        return [_format_one(f, p, t) for f, p, t in jobs]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_format_one, *zip(*jobs), chunksize=max(1, len(jobs) // (workers * 4))))


def banner(context: dict[str, Any]) -> str:
    return f"Generated by specbind from {context['source']} (sha256 {context['sha256']}). Do not edit."
