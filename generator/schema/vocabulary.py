"""The JSON Schema keywords specbind implements, per draft. Anything else fails generation with its
pointer: a keyword the generator silently ignored would make the bindings accept what the schema
forbids. Extension keywords (`x-...`) and the names a binding lists as annotations are read as
annotations, as JSON Schema reads every keyword it does not know.

Two drafts are read, each with its own semantics: 2020-12 (also what an OpenAPI 3.1 document's
schemas are) and draft-07 (and draft-06, its subset). OpenAPI 3.0 schemas are rewritten to
2020-12 on load (`nullable`, boolean exclusive bounds)."""

from __future__ import annotations

DRAFT_2020 = "2020-12"
DRAFT_07 = "draft-07"

# Keywords that only annotate: they never change what is valid.
ANNOTATIONS = frozenset(
    {
        "$schema",
        "$id",
        "$anchor",
        "$comment",
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "format",
        "$vocabulary",
        # OpenAPI 3.x annotations inside a schema
        "example",
        "externalDocs",
        "xml",
        "discriminator",
    }
)

# Keywords whose value is a map of name -> subschema.
SCHEMA_MAPS = frozenset({"$defs", "definitions", "properties", "patternProperties", "dependentSchemas"})
# Keywords whose value is one subschema.
SCHEMA_SINGLE = frozenset(
    {
        "not",
        "if",
        "then",
        "else",
        "additionalProperties",
        "unevaluatedProperties",
        "propertyNames",
        "contains",
        "additionalItems",
        "unevaluatedItems",
    }
)
# Keywords whose value is a list of subschemas.
SCHEMA_LISTS = frozenset({"allOf", "oneOf", "anyOf", "prefixItems"})
# `items` is one subschema (2020-12; draft-07 too) or a list (draft-07's tuple form);
# draft-07's `dependencies` maps a name to a subschema or to a list of names.
SCHEMA_EITHER = frozenset({"items", "dependencies"})

# Assertions on the instance itself.
ASSERTIONS = frozenset(
    {
        "$ref", "type", "const", "enum", "required", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "multipleOf", "minItems", "maxItems", "uniqueItems", "minContains", "maxContains", "pattern", "minLength",
        "maxLength", "minProperties", "maxProperties", "dependentRequired",
    }
)

KNOWN = ANNOTATIONS | SCHEMA_MAPS | SCHEMA_SINGLE | SCHEMA_LISTS | SCHEMA_EITHER | ASSERTIONS

# Keywords of one draft that mean nothing in the other: a validator of the other draft ignores
# them, so a document using them is refused rather than read in a way it did not mean.
ONLY_2020 = {
    "prefixItems": "draft-07 spells a tuple as an `items` array plus `additionalItems`",
    "dependentRequired": "draft-07 spells it `dependencies` with an array of names",
    "dependentSchemas": "draft-07 spells it `dependencies` with a schema",
    "unevaluatedProperties": "draft-07 has no unevaluated* keywords",
    "unevaluatedItems": "draft-07 has no unevaluated* keywords",
    "minContains": "draft-07 has no minContains",
    "maxContains": "draft-07 has no maxContains",
    "$anchor": "draft-07 spells an anchor as `$id: \"#name\"`",
}
ONLY_07 = {
    "additionalItems": "2020-12 spells a tuple as `prefixItems` plus `items`",
    "dependencies": "2020-12 splits it into `dependentRequired` and `dependentSchemas`",
}

# Keywords of vocabularies specbind does not implement: each stops generation with what to do.
REFUSED = {
    "$dynamicRef": "dynamic references ($dynamicRef/$dynamicAnchor) are not supported: replace them with a plain $ref to the definition they resolve to",
    "$dynamicAnchor": "dynamic references ($dynamicRef/$dynamicAnchor) are not supported: replace the anchor by $anchor and its $dynamicRefs by $refs",
    "$recursiveRef": "recursive references (draft 2019-09) are not supported: replace $recursiveRef by a plain $ref",
    "$recursiveAnchor": "recursive references (draft 2019-09) are not supported: drop $recursiveAnchor and use plain $refs",
}

# Keywords an object schema can carry that the typed model reads as fields.
OBJECT_TYPED = frozenset({"type", "properties", "required", "allOf", "unevaluatedProperties", "additionalProperties"})


def is_extension(key: str) -> bool:
    """`x-...` keywords (OpenAPI specification extensions, and schema generators' own) annotate."""
    return key.startswith("x-")


def draft_of(schema_uri: object) -> str | None:
    """The draft a `$schema` URI names, or None when it names none this reads."""
    if not isinstance(schema_uri, str):
        return None
    uri = schema_uri.rstrip("#").replace("https://", "http://")
    if uri in ("http://json-schema.org/draft/2020-12/schema",):
        return DRAFT_2020
    if uri in ("http://json-schema.org/draft-07/schema", "http://json-schema.org/draft-06/schema"):
        return DRAFT_07
    return None
