"""The JSON Schema keywords specbind implements. Anything else fails generation with its pointer:
a keyword the generator silently ignored would make the bindings accept what the schema forbids."""

from __future__ import annotations

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
        "format",
        # OpenAPI 3.1 annotations inside a schema
        "example",
        "externalDocs",
        "xml",
        "discriminator",
    }
)

# Keywords whose value is a map of name -> subschema.
SCHEMA_MAPS = frozenset({"$defs", "properties"})
# Keywords whose value is one subschema.
SCHEMA_SINGLE = frozenset({"not", "items", "additionalProperties", "unevaluatedProperties", "propertyNames"})
# Keywords whose value is a list of subschemas.
SCHEMA_LISTS = frozenset({"allOf", "oneOf", "anyOf"})
# Assertions on the instance itself.
ASSERTIONS = frozenset(
    {
        "$ref", "type", "const", "enum", "required", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "minItems", "pattern", "minLength", "maxLength",
    }
)

KNOWN = ANNOTATIONS | SCHEMA_MAPS | SCHEMA_SINGLE | SCHEMA_LISTS | ASSERTIONS
