"""Any schema node -> the general validator's node (the validation table's `schema` kind).

This is the exact path for everything the typed model does not capture: every keyword of the
vocabulary, with the document's draft's meaning, compiled to plain data a small interpreter
(`runtime/python/vocabulary/vocabulary.py`) evaluates. References become definition names;
draft-07's spellings become 2020-12's (a tuple `items` becomes `prefix_items`, `dependencies`
becomes `dependent_required`/`dependent_schemas`), keeping the keyword a failure is reported
under; a draft-07 `$ref` hides its siblings, as that draft says. Keyword values are checked here:
a malformed one stops generation with its pointer.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

from ..errors import SpecError, pointer_join
from ..regex import Untranslatable, ecma_to_python
from ..schema import vocabulary as V

TYPES = ("null", "boolean", "object", "array", "number", "string", "integer")

Node = dict[str, Any]


class Compiler:
    """Compiles the schema nodes of one document; `resolve(ref, at)` names a reference's
    definition, `fail(at, message)` makes the located error."""

    def __init__(
        self,
        draft: str,
        resolve: Callable[[Any, str], str],
        fail: Callable[[str, str], SpecError],
        annotations: frozenset[str] = frozenset(),
        formats: bool = False,
    ) -> None:
        self.draft = draft
        self.resolve = resolve
        self.fail = fail
        self.annotations = annotations
        self.formats = formats

    def compile(self, node: Any, at: str) -> Node:
        if node is True:
            return {"kind": "schema", "loc": at}
        if node is False:
            return {"kind": "schema", "loc": at, "bool": False}
        if not isinstance(node, dict):
            raise self.fail(at, f"a schema must be an object or a boolean, got {json.dumps(node)[:40]}")
        out: Node = {"kind": "schema", "loc": at}
        if "$ref" in node:
            out["ref"] = self.resolve(node["$ref"], at + "/$ref")
            if self.draft == V.DRAFT_07:
                return out  # draft-07: "All other properties in a $ref object MUST be ignored"
        get = node.get
        if "type" in node:
            out["types"] = self.types(node["type"], at + "/type")
        if "const" in node:
            out["const"] = [node["const"]]
        if "enum" in node:
            if not isinstance(node["enum"], list):
                raise self.fail(at + "/enum", "enum must be an array")
            out["enum"] = list(node["enum"])
        for key, name in (("multipleOf", "multiple_of"),):
            if key in node:
                v = node[key]
                if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
                    raise self.fail(at + "/" + key, f"{key} must be a number greater than 0")
                out[name] = v
        for key, name in (("minimum", "minimum"), ("maximum", "maximum"), ("exclusiveMinimum", "exclusive_minimum"), ("exclusiveMaximum", "exclusive_maximum")):
            if key in node:
                v = node[key]
                if isinstance(v, bool) and key.startswith("exclusive"):
                    raise self.fail(
                        at + "/" + key,
                        f"boolean {key} is draft-04's form (and OpenAPI 3.0's): in draft-07 and 2020-12 it is the bound itself, a number",
                    )
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise self.fail(at + "/" + key, f"{key} must be a number")
                out[name] = v
        for key, name in (
            ("minLength", "min_length"), ("maxLength", "max_length"), ("minItems", "min_items"), ("maxItems", "max_items"),
            ("minProperties", "min_properties"), ("maxProperties", "max_properties"), ("minContains", "min_contains"),
            ("maxContains", "max_contains"),
        ):
            if key in node:
                out[name] = self.count(node[key], at + "/" + key, key)
        if "pattern" in node:
            out["pattern"] = self.pattern(node["pattern"], at + "/pattern")
        if self.formats and isinstance(get("format"), str):
            out["format"] = node["format"]
        if get("uniqueItems") is True:
            out["unique_items"] = True
        elif "uniqueItems" in node and not isinstance(node["uniqueItems"], bool):
            raise self.fail(at + "/uniqueItems", "uniqueItems must be a boolean")
        if "required" in node:
            req = node["required"]
            if not isinstance(req, list) or not all(isinstance(r, str) for r in req):
                raise self.fail(at + "/required", "required must be an array of property names")
            if req:
                out["required"] = list(dict.fromkeys(req))
        # applicators on the instance itself
        for key, name in (("allOf", "all_of"), ("anyOf", "any_of"), ("oneOf", "one_of")):
            if key in node:
                subs = node[key]
                if not isinstance(subs, list) or not subs:
                    raise self.fail(at + "/" + key, f"{key} must be a non-empty array of schemas")
                out[name] = [self.compile(s, pointer_join(at, key, i)) for i, s in enumerate(subs)]
        for key, name in (("not", "not"), ("if", "if"), ("then", "then"), ("else", "else")):
            if key in node:
                out[name] = self.compile(node[key], pointer_join(at, key))
        if "if" not in out:
            out.pop("then", None)
            out.pop("else", None)
        # arrays
        items = get("items")
        if isinstance(items, list):  # draft-07's tuple form
            out["prefix_items"] = [self.compile(s, pointer_join(at, "items", i)) for i, s in enumerate(items)]
            out["prefix_keyword"] = "items"
            if "additionalItems" in node:
                out["items"] = self.compile(node["additionalItems"], at + "/additionalItems")
                out["items_keyword"] = "additionalItems"
        elif "items" in node:
            out["items"] = self.compile(items, at + "/items")
        if "prefixItems" in node:
            subs = node["prefixItems"]
            if not isinstance(subs, list):
                raise self.fail(at + "/prefixItems", "prefixItems must be an array of schemas")
            out["prefix_items"] = [self.compile(s, pointer_join(at, "prefixItems", i)) for i, s in enumerate(subs)]
        if "contains" in node:
            out["contains"] = self.compile(node["contains"], at + "/contains")
        else:
            out.pop("min_contains", None)
            out.pop("max_contains", None)
        if "unevaluatedItems" in node:
            out["unevaluated_items"] = self.compile(node["unevaluatedItems"], at + "/unevaluatedItems")
        # objects
        if "properties" in node:
            props = node["properties"]
            if not isinstance(props, dict):
                raise self.fail(at + "/properties", "properties must be an object")
            out["properties"] = {k: self.compile(v, pointer_join(at, "properties", k)) for k, v in props.items()}
        if "patternProperties" in node:
            pats = node["patternProperties"]
            if not isinstance(pats, dict):
                raise self.fail(at + "/patternProperties", "patternProperties must be an object")
            out["pattern_properties"] = [
                {"kind": "pattern", "pattern": self.pattern(k, pointer_join(at, "patternProperties", k)), "schema": self.compile(v, pointer_join(at, "patternProperties", k))}
                for k, v in pats.items()
            ]
        if "additionalProperties" in node:
            out["additional_properties"] = self.compile(node["additionalProperties"], at + "/additionalProperties")
        if "propertyNames" in node:
            out["property_names"] = self.compile(node["propertyNames"], at + "/propertyNames")
        if "unevaluatedProperties" in node:
            out["unevaluated_properties"] = self.compile(node["unevaluatedProperties"], at + "/unevaluatedProperties")
        dep_req: dict[str, list[str]] = {}
        dep_schemas: dict[str, Node] = {}
        for key in ("dependentRequired", "dependentSchemas", "dependencies"):
            if key not in node:
                continue
            value = node[key]
            if not isinstance(value, dict):
                raise self.fail(at + "/" + key, f"{key} must be an object")
            for prop, sub in value.items():
                where = pointer_join(at, key, prop)
                if isinstance(sub, list) and key != "dependentSchemas":
                    if not all(isinstance(s, str) for s in sub):
                        raise self.fail(where, "must be an array of property names")
                    dep_req[prop] = list(sub)
                elif key != "dependentRequired":
                    dep_schemas[prop] = self.compile(sub, where)
                else:
                    raise self.fail(where, "must be an array of property names")
        if dep_req:
            out["dependent_required"] = dep_req
            if "dependencies" in node:
                out["dependencies_keyword"] = "dependencies"
        if dep_schemas:
            out["dependent_schemas"] = dep_schemas
        return out

    def types(self, value: Any, at: str) -> list[str]:
        names = value if isinstance(value, list) else [value]
        if not names or not all(isinstance(t, str) for t in names):
            raise self.fail(at, "type must be a type name or a non-empty array of them")
        for t in names:
            if t not in TYPES:
                raise self.fail(at, f"unknown type {json.dumps(t)}: the types are {', '.join(TYPES)}")
        if len(set(names)) != len(names):
            raise self.fail(at, "type names repeat")
        return list(names)

    def count(self, value: Any, at: str, key: str) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(at, f"{key} must be a non-negative integer")
        return value

    def pattern(self, value: Any, at: str) -> str:
        if not isinstance(value, str):
            raise self.fail(at, "a pattern must be a string")
        try:
            re.compile(ecma_to_python(value))
        except (re.error, Untranslatable) as exc:
            raise self.fail(at, f"pattern does not compile: {exc}") from None
        return value


def json_types(node: Node, lookup: Callable[[str], set[str]]) -> set[str]:
    """The JSON types a value `node` accepts may have (a superset); `lookup` gives a referenced
    definition's. "number" always comes with "integer"."""
    every = {"null", "boolean", "object", "array", "number", "string", "integer"}
    if node.get("bool") is False:
        return set()
    found = set(every)
    if "types" in node:
        found = set(node["types"])
        if "number" in found:
            found.add("integer")
    for key in ("const", "enum"):
        if key in node:
            kinds = {_type_of(v) for v in node[key]}
            found &= kinds | ({"number"} if "integer" in kinds else set())
    if "ref" in node:
        found &= lookup(node["ref"])
    for sub in node.get("all_of", []):
        found &= json_types(sub, lookup)
    for key in ("any_of", "one_of"):
        if key in node:
            found &= set().union(*(json_types(s, lookup) for s in node[key]))
    if "number" in found:
        found.add("integer")
    return found


def _type_of(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "integer" if v.is_integer() else "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def same_instance_refs(node: Any) -> set[str]:
    """Definitions a node applies to the very value it is applied to (not to a member or item):
    a cycle of these never ends."""
    found: set[str] = set()
    if not isinstance(node, dict):
        return found
    if node.get("kind") == "ref":
        found.add(node["name"])
        return found
    if node.get("kind") != "schema":
        return found
    if "ref" in node:
        found.add(node["ref"])
    for key in ("all_of", "any_of", "one_of"):
        for sub in node.get(key, []):
            found |= same_instance_refs(sub)
    for key in ("not", "if", "then", "else"):
        if key in node:
            found |= same_instance_refs(node[key])
    for sub in node.get("dependent_schemas", {}).values():
        found |= same_instance_refs(sub)
    return found
