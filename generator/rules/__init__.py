"""The rules DSL: parse, check against the IR, compile into transition tables."""
