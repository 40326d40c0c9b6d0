"""Replay findings as SARIF 2.1.0 or JUnit XML, for code-scanning and CI dashboards."""

from __future__ import annotations

import json
import re
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from . import __version__


def sarif(source: str, rules: dict[str, dict[str, str]], findings: list[dict[str, Any]], lines: dict[int, int]) -> str:
    """One stream's findings (each with `fatal`); `lines`: event index -> line in the source."""
    located = [f if f["index"] not in lines else f | {"line": lines[f["index"]]} for f in findings]
    return sarif_files(rules, [(source, located)])


def sarif_files(rules: dict[str, dict[str, str]], files: list[tuple[str, list[dict[str, Any]]]]) -> str:
    """One SARIF log for the findings of every file (each finding with `fatal`, and `line`
    where the event's line is known)."""

    def location(source: str, f: dict[str, Any]) -> dict[str, Any]:
        loc: dict[str, Any] = {"physicalLocation": {"artifactLocation": {"uri": source}}}
        if f.get("line") is not None:
            loc["physicalLocation"]["region"] = {"startLine": f["line"]}
        loc["logicalLocations"] = [{"name": f"event {f['index']}", "kind": "element"}]
        return loc

    doc = {
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "specbind",
                        "version": __version__,
                        "rules": [
                            {
                                "id": rid,
                                "shortDescription": {"text": spec["message"]},
                                "properties": {"level": spec["level"], "reference": f"{spec['page']} § {spec['section']}"},
                            }
                            for rid, spec in rules.items()
                        ],
                    }
                },
                "artifacts": [{"location": {"uri": source}} for source, _ in files],
                "results": [
                    {
                        "ruleId": f["rule"],
                        "level": "error" if f["fatal"] else "warning",
                        "message": {"text": f["message"]},
                        "locations": [location(source, f)],
                    }
                    for source, findings in files
                    for f in findings
                ],
            }
        ],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# What XML 1.0 cannot hold at all (control characters, lone surrogates, U+FFFE/U+FFFF), even
# escaped; a message quoting a document may contain any of them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def junit(source: str, rules: dict[str, dict[str, str]], findings: list[dict[str, Any]]) -> str:
    """One test case per rule: it fails when a MUST-level finding names it."""
    return junit_files(rules, [(source, findings)])


def junit_files(rules: dict[str, dict[str, str]], files: list[tuple[str, list[dict[str, Any]]]]) -> str:
    """One test suite per file, one test case per rule: it fails when a MUST-level finding of
    that file names it."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<testsuites>"]
    for source, findings in files:
        out.extend(_suite(source, rules, findings))
    out.append("</testsuites>")
    return "\n".join(out) + "\n"


def _suite(source: str, rules: dict[str, dict[str, str]], findings: list[dict[str, Any]]) -> list[str]:
    by_rule: dict[str, list[dict[str, Any]]] = {}
    for f in findings:
        by_rule.setdefault(f["rule"], []).append(dict(f, message=_xml_text(f["message"])))
    source = _xml_text(source)
    failures = sum(1 for rid in rules if any(f["fatal"] for f in by_rule.get(rid, [])))
    out = [f"<testsuite name={quoteattr('specbind replay ' + source)} tests=\"{len(rules)}\" failures=\"{failures}\">"]
    for rid, spec in rules.items():
        out.append(f"<testcase classname={quoteattr(source)} name={quoteattr(rid)}>")
        found = by_rule.get(rid, [])
        fatal = [f for f in found if f["fatal"]]
        if fatal:
            text = "\n".join(f"event {f['index']}: {f['message']}" for f in fatal)
            out.append(f"<failure message={quoteattr(fatal[0]['message'])} type={quoteattr(spec['level'])}>{escape(text)}</failure>")
        warned = [f for f in found if not f["fatal"]]
        if warned:
            out.append("<system-out>" + escape("\n".join(f"event {f['index']}: {f['message']}" for f in warned)) + "</system-out>")
        out.append("</testcase>")
    out.append("</testsuite>")
    return out
