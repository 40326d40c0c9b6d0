"""`specbind run` and `specbind serve`: the HTTP binding from the command line.

Both drive conventional entry points of the generated package, as `replay` drives
`<package>.consumer.Consumer`: `<package>.http_client.AgentClient` (run) and
`<package>.http_server.create_app`, `.recorded` and `.demo` (serve). The generator knows nothing
of the protocol: a package without these modules gets a usage error.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import click

from .common import (
    consumer_warning,
    extra_module,
    http_url,
    load_package,
    out_option,
    package_module,
    public_finding,
    read_json_option,
    rules_module,
    runs_summary,
    spec_option,
)
from .fuzz import fuzz

# `run` exit codes (README): 0 a conformant stream whose last run ended, 1 a MUST-level violation
# or a truncated run, 2 usage (including an input refused before sending), 3 no stream (an HTTP
# error status, a connection that failed, a response that is not an event stream).
EXIT_TRANSPORT = 3


def _headers(values: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for value in values:
        name, colon, rest = value.partition(":")
        if not colon or not name.strip():
            raise click.BadParameter(f"{value!r}: expected 'Name: value'", param_hint="--header")
        out[name.strip()] = rest.strip()
    return out


@click.command("run")
@spec_option
@click.option("--input", "input_path", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="The request body to POST (default: the package's minimal request, fresh ids).")
@click.option("--finished", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="The RUN_FINISHED that closed the run the input continues (its resume list is checked against it).")
@click.option("--proto", is_flag=True, help="Also accept the protobuf media type.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON report on stdout.")
@click.option("--header", "-H", "header", multiple=True, metavar="'NAME: VALUE'", help="An extra request header. Repeatable.")
@click.option("--timeout", type=click.FloatRange(0, min_open=True), default=300.0, show_default=True, help="Seconds the stream may stay silent.")
@out_option
@click.argument("url", callback=http_url)
def run(spec_dir: Path, input_path: Path | None, finished: Path | None, proto: bool, as_json: bool,
        header: tuple[str, ...], timeout: float, out: Path, url: str) -> None:
    """POST a request to URL and judge the event stream it answers with, as `replay`
    judges a file, as the events arrive.

    Prints the replay report plus the transport: the HTTP status and whether the stream was
    truncated (it ended without a terminal event). Exit 0 when the stream is conformant and
    its last run ended, 1 when a MUST-level rule is violated or the run was truncated, 2 on
    usage errors (an input refused before sending included), 3 when no stream came (an
    HTTP error status, a failed connection, a response that is not an event stream)."""
    client_module = extra_module(spec_dir, out, "http_client", "http")
    # without --input, the package says what a minimal request is (the CLI knows no protocol)
    document = read_json_option(input_path, "--input") if input_path is not None else client_module.default_input()
    continues = read_json_option(finished, "--finished") if finished is not None else None
    try:
        client = client_module.AgentClient(
            url, proto=proto, headers=_headers(header), keep_delivered=as_json,
            timeout=client_module.httpx.Timeout(30.0, read=timeout),
        )
    except client_module.UnsupportedMediaType as exc:
        raise click.UsageError(f"--proto: {exc}") from None
    import asyncio  # imported by the commands that use it: other commands start faster

    try:
        stream = client.run(document, continues=continues)
    except client_module.InputRejected as exc:
        click.echo(f"error: nothing sent: {exc}", err=True)
        asyncio.run(client.aclose())
        sys.exit(2)
    code = asyncio.run(_consume(client_module, client, stream, url, as_json))
    sys.exit(code)

@click.command("serve")
@spec_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port, 0..65535 (0: any free port; the URL is printed).")
@click.option("--path", "route", default="/", show_default=True, help="The endpoint's path.")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "sse", "json"]), default=None, help="STREAM's framing (default: told apart by its first bytes, as replay --format auto does).")
@click.option("--check", is_flag=True, help="Producer mode: an event breaking a MUST-level rule is replaced by RUN_ERROR and the stream closes.")
@click.option("--keepalive", type=float, default=15.0, show_default=True, help="Seconds of silence before a keep-alive comment (0: never).")
@click.option("--delay", type=float, default=0.0, show_default=True, help="Seconds before each event.")
@click.option("--generate", is_flag=True, help="Answer every request with a new random stream generated from the rules (conformant unless --violate).")
@click.option("--seed", type=int, default=None, help="With --generate: request N (from 0) gets the stream of seed SEED + N (default: a random SEED, printed).")
@click.option("--violate", metavar="RULE", default=None, help="With --generate: every stream breaks RULE, and only RULE ('all': request N breaks the Nth rule a stream can break, in turn).")
@click.option("--max-events", type=click.IntRange(1, 10_000), default=30, show_default=True, help="With --generate: the length the random part of a stream aims at.")
@click.option("--unattributed", is_flag=True, help="With --generate: attribute no event to an owner (the rules' owner member: AG-UI's subagentRunId).")
@out_option
@click.argument("stream", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path))
def serve(spec_dir: Path, host: str, port: int, route: str, fmt: str | None, check: bool, keepalive: float,
          delay: float, generate: bool, seed: int | None, violate: str | None, max_events: int, unattributed: bool,
          out: Path, stream: Path | None) -> None:
    """Serve STREAM (a recorded stream, JSON Lines or SSE) as a mock agent endpoint: every
    POST whose request validates gets the recorded events. Without STREAM, the package's
    built-in demo agent answers. With --generate, every request gets a new random stream
    generated from the spec's rules, to test a client with: conformant, or breaking the one
    rule --violate names; each is logged on stderr with its seed.

    Bad input gets a 4xx problem document and no stream, as from a real agent."""
    if generate and stream is not None:
        raise click.UsageError("--generate serves generated streams: give no STREAM with it")
    if not generate and (seed is not None or violate is not None or unattributed):
        raise click.UsageError("--seed, --violate and --unattributed go with --generate")
    server_module = extra_module(spec_dir, out, "http_server", "http")
    try:
        import uvicorn
    except ImportError:
        raise click.UsageError("serve needs uvicorn: pip install 'specbind[http]'") from None
    options: dict[str, Any] = {}
    if generate:
        package = load_package(spec_dir, out)
        strategies = _generator(package, violate)
        if seed is None:
            import random

            seed = random.SystemRandom().randrange(2**32)
        handler = _generated(package, strategies, seed, violate, max_events, delay, not unattributed)
        what = f"generated streams ({'each breaking ' + violate if violate else 'conformant'}; seed {seed}: request N gets seed {seed} + N)"
        if violate is not None and (violate == "all" or violate in _document_rules(package)):
            options["protobuf"] = False  # a document that does not decode has no protobuf form
    elif stream is None:
        handler = server_module.demo
        what = "the built-in demo agent"
    else:
        documents = _documents(stream, _judged_format(spec_dir, out, stream, fmt))
        _summarize(spec_dir, out, stream, documents)
        handler = server_module.recorded(documents, delay)
        what = f"{stream} ({len(documents)} events)"
    if not route.startswith("/"):
        raise click.BadParameter("must start with /", param_hint="--path")
    app = server_module.create_app(handler, path=route, check=check, keepalive=keepalive or None, **options)
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        # Listen before printing the URL: a client started on that line must queue, not be
        # refused in the moment before uvicorn's own listen() (a CI run lost a test to this).
        sock.listen(2048)
    except OSError as exc:
        raise click.UsageError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    click.echo(f"serving {what} at http://{shown}:{bound}{route}", nl=True)
    sys.stdout.flush()
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])


def _generator(package: ModuleType, violate: str | None) -> ModuleType:
    """The package's strategies, checked to make what was asked."""
    try:
        strategies = importlib.import_module(f"{package.__name__}.strategies")
        rules = strategies.stream_rules()
    except (ModuleNotFoundError, ValueError) as exc:
        raise click.UsageError(f"{package.__name__} cannot generate streams: {exc}") from None
    if violate is not None and violate != "all" and violate not in rules:
        automaton = importlib.import_module(f"{package.__name__}.automaton")
        if violate in automaton.RULES:
            raise click.BadParameter(f"{violate} is not decided on a stream (it is checked on an input or a listing)", param_hint="--violate")
        raise click.BadParameter(f"{violate}: no such rule (the stream rules: {', '.join(rules)})", param_hint="--violate")
    return strategies


def _document_rules(package: ModuleType) -> set[str]:
    """The rules a document breaks by what it is (not decoding, a stripped member, a retired
    shape), not by where it stands in the stream."""
    tables = importlib.import_module(f"{package.__name__}.automaton_table").TABLES
    return {tables[k] for k in ("decode_error_rule", "stripped_rule", "unknown_event_rule", "retired_rule") if tables.get(k)}


def _generated(package: ModuleType, strategies: ModuleType, seed: int, violate: str | None, max_events: int,
               delay: float, owners: bool = True) -> Any:
    """A handler answering request N with the stream of seed SEED + N: one run, opened with the
    identity the request carries (the members the run opener shares with it)."""
    import asyncio
    import itertools

    codec = importlib.import_module(f"{package.__name__}.codec_json")
    counter = itertools.count()
    rules = strategies.stream_rules()

    async def handler(run: Any) -> Any:
        n = next(counter)
        request = codec.to_builtins(run.input)
        options = {"max_runs": 1, "opener": strategies.opener_from(request), "max_events": max_events, "owners": owners}
        rule = rules[n % len(rules)] if violate == "all" else violate
        made = None
        for tried in range(seed + n, seed + n + 5):  # a seed no stream was found for: the next
            try:
                made = strategies.violation(rule, tried, **options) if rule else strategies.stream(tried, **options)
                break
            except strategies.GenerationError:
                continue
        if made is None:
            raise RuntimeError(f"no stream could be generated from seeds {seed + n}..{seed + n + 4}")
        kind = f"breaking {rule}" if rule else "conformant"
        click.echo(f"request {n}: seed {made.seed}: {kind}, {len(made.documents)} events", err=True)
        for document in made.documents:
            if delay:
                await asyncio.sleep(delay)
            yield document

    return handler


def _judged_format(spec_dir: Path, out: Path, path: Path, fmt: str | None) -> str:
    """STREAM's framing as `replay` judges it (read as `--format` says, else told apart by its
    first bytes, whatever its name), refusing a stream replay would find empty or not the
    protocol's: serving it would answer every request with nothing."""
    module = package_module(spec_dir, out, "replay", f"{spec_dir} declares no rules file: a recorded stream cannot be judged")
    report = module.replay(path, fmt=fmt or "auto")
    if report["outcome"] in ("empty", "unrecognized"):
        why = "; ".join(report["notes"]) or report["outcome"]
        raise click.UsageError(f"{path}: {report['outcome']} as {report['format']} ({why}): nothing to serve; `specbind replay` says the same")
    return str(report["format"])


def _documents(path: Path, fmt: str) -> list[bytes]:
    """The stream's documents as `replay` reads them: JSON Lines, an SSE body, or JSON (an
    array of events, one event, or a test case with a `stream`)."""
    from ..streams import jsonl_documents, sse_documents

    with path.open("rb") as handle:
        if fmt != "json":
            return list(sse_documents(handle) if fmt == "sse" else jsonl_documents(handle))
        value = json.loads(handle.read())
    events = value.get("stream") if isinstance(value, dict) and isinstance(value.get("stream"), list) else value
    return [json.dumps(e, ensure_ascii=False, separators=(",", ":")).encode("utf-8") for e in (events if isinstance(events, list) else [events])]


def _summarize(spec_dir: Path, out: Path, path: Path, documents: list[bytes]) -> None:
    """What the automaton makes of the recorded stream, on stderr: it is served as it is."""

    module = rules_module(spec_dir, out)
    automaton = module.Automaton()
    for doc in documents:
        automaton.feed_document(doc)
    automaton.finish()
    violations = [f for f in automaton.findings if f.fatal]
    states = ", ".join(r["state"] for r in automaton.runs) or "no run"
    click.echo(f"{path}: {automaton.outcome} ({states}; {len(violations)} violations): served as recorded", err=True)
    for f in violations[:5]:
        click.echo(f"  {f}", err=True)


async def _consume(client_module: ModuleType, client: Any, stream: Any, url: str, as_json: bool) -> int:

    transport: dict[str, Any] = {"status": None, "truncated": False}
    automaton = stream.automaton
    shown = 0
    try:
        try:
            async with stream:
                async for _ in stream:
                    if not as_json and len(automaton.findings) > shown:  # findings as they come
                        for f in automaton.findings[shown:]:
                            click.echo(str(f))
                        shown = len(automaton.findings)
            transport["status"] = stream.status
        except client_module.HTTPError as exc:
            transport.update(status=exc.status, error=str(exc))
            if exc.problem is not None:
                transport["problem"] = exc.problem
            return _no_stream(stream, transport, as_json, url)
        except client_module.TransportError as exc:
            transport.update(status=stream.status, error=str(exc))
            return _no_stream(stream, transport, as_json, url)
    finally:
        await client.aclose()
    transport["truncated"] = stream.truncated
    if stream.transport_error:
        transport["error"] = stream.transport_error
    findings = [f.as_dict() | {"fatal": f.fatal} for f in automaton.findings]
    violations = [public_finding(f) for f in findings if f["fatal"]]
    warnings = [public_finding(f) for f in findings if not f["fatal"]]
    warnings += [public_finding(f.as_dict() | {"fatal": False}) for f in stream.input_findings]
    extra = stream.consumer.report()
    warnings += [consumer_warning(text) for text in extra.pop("consumerWarnings")]
    extra["request"] = client_module.codec_json.to_builtins(stream.request)
    conformant = automaton.outcome == "completed" and not stream.truncated
    if as_json:
        report = {
            "outcome": automaton.outcome,
            "violations": violations,
            "warnings": warnings,
            "events": [e["type"] for e in extra["delivered"]],
            "runs": automaton.runs,
            **extra,
            "transport": transport,
        }
        click.echo(json.dumps(report, ensure_ascii=False, default=str))
    else:
        for f in automaton.findings[shown:]:  # what the end of the stream found
            click.echo(str(f))
        for w in warnings:
            if w["rule"] is None:
                click.echo(f"warning: {w['message']}")
        runs = runs_summary(automaton.runs)
        cut = "; TRUNCATED: the stream ended without a terminal event" if stream.truncated else ""
        broke = f" ({stream.transport_error})" if stream.transport_error else ""
        click.echo(
            f"{url}: HTTP {stream.status} {stream.media_type}: {automaton.outcome}: {automaton.index + 1:,} events, "
            f"runs: {runs}; {len(violations)} violations, {len(warnings)} warnings{cut}{broke}"
        )
    return 0 if conformant else 1


def _no_stream(stream: Any, transport: dict[str, Any], as_json: bool, url: str) -> int:
    if as_json:
        report = {
            "outcome": "rejected",
            "violations": [],
            "warnings": [],
            "events": [],
            "runs": [],
            "request": stream.consumer.report().get("request"),
            "transport": transport,
        }
        click.echo(json.dumps(report, ensure_ascii=False, default=str))
    else:
        click.echo(f"{url}: no stream: {transport.get('error')}")
    return EXIT_TRANSPORT


COMMANDS: list[click.Command] = [run, serve, fuzz]
