"""An example target, defined outside the generator: the lifecycle of a spec's rules file drawn
as state diagrams, one Markdown page (Mermaid, which renders where people read Markdown) and the
diagrams as JSON for other tools.

Use it with `specbind generate --target examples/targets/lifecycle`, or name it in a spec's
binding.toml:

    [targets.lifecycle]
    from = "../../examples/targets/lifecycle"

docs/targets.md walks through it line by line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from generator.products import Products
from generator.rules.diagram import as_context, diagrams
from generator.targets import Data, Plan, Target


def build(products: Products, options: dict[str, Any]) -> list[Plan]:
    """One plan: the page and the data, in `<spec folder>-lifecycle/` (or `[targets.lifecycle]
    folder = "..."`). A spec without a rules file has no lifecycle: nothing to write."""
    if products.rules is None:
        return []
    drawn = [as_context(d) for d in diagrams(products.rules.tables)]
    folder = str(options.get("folder") or f"{products.binding.spec_dir.name}-lifecycle")
    context = {
        "protocol": products.binding.name,
        "version": products.binding.version,
        "source": products.binding.stable(products.binding.rules) if products.binding.rules else "",
        "sha256": products.rules.sha256,
        "diagrams": drawn,
    }
    data = json.dumps({"source": context["source"], "diagrams": drawn}, indent=1) + "\n"
    return [Plan(package_dir=folder, context=context, data=(Data("lifecycle.json", data.encode()),))]


TARGET = Target(
    name="lifecycle",
    description="state diagrams of a spec's rules file (Mermaid in Markdown, and JSON)",
    build=build,
    templates=Path(__file__).resolve().parent / "templates",
)
