"""`specbind convert`: documents between JSON and protobuf, each checked strictly on the way."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, NoReturn

import click

from .common import load_package, out_option, spec_option


def _package(spec_dir: Path, out: Path) -> tuple[ModuleType, ModuleType, ModuleType]:
    package = load_package(spec_dir, out)
    try:
        proto = importlib.import_module(f"{package.__name__}.codec_proto")
        framing = importlib.import_module(f"{package.__name__}.transport_proto")
    except ModuleNotFoundError:
        raise click.UsageError(f"{spec_dir} declares no protobuf binding ([proto] in binding.toml)") from None
    return package, proto, framing


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise click.BadParameter(f"cannot read {path}: {exc.strerror}", param_hint="INPUT") from None


def _write(path: str, chunks: list[bytes]) -> None:
    if path == "-":
        for c in chunks:
            sys.stdout.buffer.write(c)
        sys.stdout.buffer.flush()
        return
    try:
        with open(path, "wb") as handle:
            for c in chunks:
                handle.write(c)
    except OSError as exc:
        raise click.BadParameter(f"cannot write {path}: {exc.strerror}", param_hint="OUTPUT") from None


def _refuse(shown: str, where: str, exc: Any) -> NoReturn:
    click.echo(f"error: {shown}{where}: not a valid {exc.definition}", err=True)
    for issue in exc.errors:
        click.echo(f"  {issue}", err=True)
    sys.exit(2)  # a refused input


@click.command()
@spec_option
@click.option("--from", "source", required=True, type=click.Choice(["json", "proto"]), help="What INPUT holds.")
@click.option("--to", "target", required=True, type=click.Choice(["json", "proto"]), help="What OUTPUT gets.")
@click.option("--as", "definition", default=None, help="The definition each document is (default: the spec's root, an event).")
@click.option("--stream", is_flag=True, help="A stream: JSON Lines on the JSON side, length-prefixed frames (the HTTP + protobuf body) on the protobuf side.")
@out_option
@click.argument("input_path", metavar="INPUT", type=click.Path(allow_dash=True, dir_okay=False))
@click.argument("output_path", metavar="OUTPUT", type=click.Path(allow_dash=True, dir_okay=False))
def convert(spec_dir: Path, source: str, target: str, definition: str | None, stream: bool, out: Path, input_path: str, output_path: str) -> None:
    """Convert documents between JSON and protobuf, checking each strictly on the way.

    INPUT and OUTPUT are files, or - for stdin and stdout. Without --stream INPUT holds one
    document (a JSON document, or the bytes of one message). Exit 0 on success, 2 when the input
    is refused (not valid: nothing is written) or on usage errors."""
    package, proto, framing = _package(spec_dir, out)
    codec_json = package.codec_json
    name = definition or proto.ROOT
    if name not in proto.DEFINITIONS:
        carried = ", ".join(proto.DEFINITIONS)
        raise click.UsageError(f"--as {name!r}: no message of the wire carries it on its own (it carries {carried})")
    shown = "<stdin>" if input_path == "-" else input_path
    data = _read(input_path)
    decode: Callable[[bytes], Any] = (lambda b: codec_json.decode(b, name)) if source == "json" else (lambda b: proto.decode(b, name))
    encode: Callable[[Any], bytes] = (lambda v: codec_json.encode(v)) if target == "json" else (lambda v: proto.encode(v, name))
    chunks: list[bytes] = []
    if not stream:
        try:
            value = decode(data)
        except package.DecodeError as exc:
            _refuse(shown, "", exc)
        chunks.append(encode(value) + (b"\n" if target == "json" else b""))
        _write(output_path, chunks)
        return
    if source == "json":
        for number, line in enumerate(data.split(b"\n"), start=1):
            if not line.strip():
                continue
            try:
                value = decode(line)
            except package.DecodeError as exc:
                _refuse(shown, f": line {number}", exc)
            chunks.append(_emit(value, target, encode, framing))
    else:
        reader = framing.FrameDecoder(definition=name)
        try:
            values = reader.feed(data)
            reader.finish()
        except package.DecodeError as exc:
            _refuse(shown, "", exc)
        chunks = [_emit(v, target, encode, framing) for v in values]
    _write(output_path, chunks)


def _emit(value: Any, target: str, encode: Callable[[Any], bytes], framing: ModuleType) -> bytes:
    payload = encode(value)
    return payload + b"\n" if target == "json" else bytes(framing.frame(payload))


COMMANDS: list[click.Command] = [convert]
