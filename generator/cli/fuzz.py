"""`specbind fuzz`: random valid inputs posted to an agent endpoint, every answer judged.

Protocol-neutral, as `run` is: what an input is comes from the generated package: its
`http_client.random_input(seed)` when it has one (AG-UI's: any RunAgentInput the schema allows,
with no resume list), else a random document of the request definition its client names
(`http_client.INPUT_DEFINITION`). Each answer is read with the package's `AgentClient`, so it is
judged as `run` judges one stream.

Run N (from 0) posts the input of seed SEED + N; a failure names its seed, and
`specbind fuzz URL --seed S --runs 1` posts that input again.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import random
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import click

from .common import EXIT_FINDING, EXIT_OK, extra_module, http_url, out_option, spec_option

# no answer at all from the first request: nothing was judged (as `run`'s 3: no stream came)
EXIT_NO_AGENT = 3


def _inputs(client_module: ModuleType) -> Any:
    """seed -> a request document, as the package makes them."""
    make = getattr(client_module, "random_input", None)
    if make is not None:
        return make
    definition = getattr(client_module, "INPUT_DEFINITION", None)
    if definition is None:
        raise click.UsageError(f"{client_module.__name__} says neither how to make a random input (random_input) nor what one is (INPUT_DEFINITION)")
    strategies = importlib.import_module(f"{client_module.__package__}.strategies")
    return lambda seed: strategies.document(definition, seed)


def _headers(values: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for value in values:
        name, colon, rest = value.partition(":")
        if not colon or not name.strip():
            raise click.BadParameter(f"{value!r}: expected 'Name: value'", param_hint="--header")
        out[name.strip()] = rest.strip()
    return out


async def _one(client_module: ModuleType, client: Any, document: Any) -> dict[str, Any]:
    """Post one input and judge the answer: {"verdict": passed | failed | refused, ...}."""
    result: dict[str, Any] = {"verdict": "passed", "status": None, "events": 0, "violations": [], "warnings": []}
    try:
        stream = client.run(document)
    except client_module.InputRejected as exc:
        # the package's own input, refused by its own client: a bug in the package, not the agent
        return {**result, "verdict": "skipped", "reason": f"the input was refused before sending: {exc}"}
    try:
        async with stream:
            async for _ in stream:
                pass
        result["status"] = stream.status
    except client_module.HTTPError as exc:
        result["status"] = exc.status
        detail = f"HTTP {exc.status}" + (f": {json.dumps(exc.problem, ensure_ascii=False)[:300]}" if exc.problem is not None else "")
        if exc.status >= 500:
            return {**result, "verdict": "failed", "reason": f"server error ({detail})"}
        if exc.status in (400, 422):
            return {**result, "verdict": "failed", "reason": f"a valid input refused as invalid ({detail})"}
        return {**result, "verdict": "refused", "reason": detail}
    except client_module.TransportError as exc:
        result["status"] = stream.status
        return {**result, "verdict": "failed", "reason": f"no stream: {exc}", "transport": True}
    automaton = stream.automaton
    result["events"] = automaton.index + 1
    result["violations"] = [f.as_dict() for f in automaton.findings if f.fatal]
    result["warnings"] = [f.as_dict() for f in automaton.findings if not f.fatal]
    if result["violations"]:
        first = result["violations"][0]
        return {**result, "verdict": "failed", "reason": f"{first['rule']} [{first['level']}] event {first['index']} ({first['type']}): {first['message']}"}
    if stream.truncated:
        broke = f" ({stream.transport_error})" if stream.transport_error else ""
        return {**result, "verdict": "failed", "reason": f"truncated: the stream ended while a run was active{broke}"}
    return result


async def _campaign(client_module: ModuleType, url: str, runs: int, seed: int, proto: bool, headers: dict[str, str],
                    timeout: float, exitfirst: bool, say: Any, results: list[dict[str, Any]]) -> None:
    """Each run's result appended to `results` as it ends, so an interrupted campaign still
    reports the runs it finished."""
    make = _inputs(client_module)
    for n in range(runs):
        run_seed = seed + n
        document = make(run_seed)
        # a client per run: a client remembers the threads it saw, and a run replayed alone
        # (--seed S --runs 1) must be posted as it was in the campaign
        client = client_module.AgentClient(url, proto=proto, headers=headers,
                                           timeout=client_module.httpx.Timeout(30.0, read=timeout))
        started = time.monotonic()
        try:
            result = await _one(client_module, client, document)
        finally:
            await client.aclose()
        result.update(run=n, seed=run_seed, seconds=round(time.monotonic() - started, 3))
        results.append(result)
        say(result)
        if n == 0 and result.get("transport") and result["status"] is None:
            break  # no agent there at all
        if exitfirst and result["verdict"] == "failed":
            break


@click.command("fuzz")
@spec_option
@click.option("--runs", type=click.IntRange(1), default=100, show_default=True, help="How many inputs to post.")
@click.option("--seed", type=int, default=None, help="Run N (from 0) posts the input of seed SEED + N (default: a random SEED, printed).")
@click.option("--proto", is_flag=True, help="Also accept the protobuf media type.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON report on stdout.")
@click.option("--header", "-H", "header", multiple=True, metavar="'NAME: VALUE'", help="An extra request header. Repeatable.")
@click.option("--timeout", type=click.FloatRange(0, min_open=True), default=60.0, show_default=True, help="Seconds an answer may stay silent.")
@click.option("--exitfirst", "-x", is_flag=True, help="Stop at the first failing run.")
@out_option
@click.argument("url", callback=http_url)
def fuzz(spec_dir: Path, runs: int, seed: int | None, proto: bool, as_json: bool, header: tuple[str, ...],
         timeout: float, exitfirst: bool, out: Path, url: str) -> None:
    """POST random valid inputs to the agent endpoint at URL and judge every stream it answers
    with, as `run` judges one.

    A run fails when its answer breaks a MUST-level rule, ends while a run is active, is a
    server error (5xx), refuses the valid input as invalid (400, 422), or is no event stream at
    all; other refusals (401, 403, 409, 429...) are counted, not failed. Each failure names its
    seed: `--seed S --runs 1` posts the same input again. Exit 0 when every run passed, 1 when
    one failed, 2 on usage errors, 3 when nothing answered the first request."""
    client_module = extra_module(spec_dir, out, "http_client", "http")
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    parsed_headers = _headers(header)
    if not as_json:
        click.echo(f"fuzzing {url}: {runs} run(s) from seed {seed}", err=True)

    def say(result: dict[str, Any]) -> None:
        if as_json:
            return
        if result["verdict"] in ("failed", "skipped"):
            click.echo(f"run {result['run']} (seed {result['seed']}): {result['verdict']}: {result['reason']}")
        elif result["verdict"] == "refused":
            click.echo(f"run {result['run']} (seed {result['seed']}): refused: {result['reason']}", err=True)

    results: list[dict[str, Any]] = []
    interrupted = False
    try:
        asyncio.run(_campaign(client_module, url, runs, seed, proto, parsed_headers, timeout, exitfirst, say, results))
    except KeyboardInterrupt:
        interrupted = True
    counts = {v: sum(1 for r in results if r["verdict"] == v) for v in ("passed", "failed", "refused", "skipped")}
    failures = [r for r in results if r["verdict"] == "failed"]
    first = failures[0]["seed"] if failures else None
    no_agent = bool(results) and len(results) == 1 and results[0].get("transport") and results[0]["status"] is None
    replay = None if first is None else f"specbind fuzz --spec {spec_dir} {url} --seed {first} --runs 1"
    if as_json:
        report = {
            "url": url,
            "seed": seed,
            "runs": len(results),
            **counts,
            "warnings": sum(len(r["warnings"]) for r in results),
            "firstFailingSeed": first,
            "replay": replay,
            "results": [
                {k: r.get(k) for k in ("run", "seed", "verdict", "reason", "status", "events", "seconds", "violations", "warnings") if k in r}
                for r in results
            ],
        }
        click.echo(json.dumps(report, ensure_ascii=False, default=str))
    else:
        warned = sum(len(r["warnings"]) for r in results)
        line = (f"{url}: {len(results)} run(s) from seed {seed}: {counts['passed']} passed, {counts['failed']} failed, "
                f"{counts['refused']} refused" + (f", {counts['skipped']} skipped" if counts["skipped"] else "") + f"; {warned} warnings")
        click.echo(line)
        if no_agent:
            click.echo(f"nothing answered at {url}: no agent judged (exit {EXIT_NO_AGENT})")
        elif first is not None:
            click.echo(f"first failing seed: {first} (again: {replay})")
    if interrupted:
        raise KeyboardInterrupt
    if no_agent:
        sys.exit(EXIT_NO_AGENT)
    sys.exit(EXIT_FINDING if failures else EXIT_OK)


__all__ = ["fuzz"]
