"""An import-linter contract the stock ones cannot say: "these rooms import only the standard
library (and the few packages named)".

`forbidden` contracts list what a room may not import; a rules module that picked up numpy, or
a protocol module that picked up trio, would pass every such list nobody thought to extend. This
contract lists what a room *may* import instead: the standard library (`sys.stdlib_module_names`),
the packages named in `allowed_external`, and the modules in `allowed_internal`.

Registered in pyproject.toml's `[tool.importlinter]` as `stdlib_only`; `lint-imports` imports
this module from the repository root, where it runs.
"""

from __future__ import annotations

import sys
from typing import Any

import grimp
from importlinter import Contract, ContractCheck, fields, output


class StdlibOnlyContract(Contract):
    """Each module under `source_modules` imports only the standard library, the external
    packages in `allowed_external`, and modules under `allowed_internal`."""

    type_name = "stdlib_only"

    source_modules = fields.ListField(subfield=fields.StringField())
    allowed_external = fields.ListField(subfield=fields.StringField(), required=False)
    allowed_internal = fields.ListField(subfield=fields.StringField(), required=False)

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        sources: list[str] = list(self.source_modules)  # parsed from the config by now
        external = set(self.allowed_external or ())
        ours = [*sources, *(self.allowed_internal or ())]
        strays: list[dict[str, Any]] = []
        for source in sources:
            for importer in sorted({source} | graph.find_descendants(source)):
                for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                    top = imported.split(".")[0]
                    if top in sys.stdlib_module_names or top in external:
                        continue
                    if any(imported == m or imported.startswith(m + ".") for m in ours):
                        continue
                    details = graph.get_import_details(importer=importer, imported=imported)
                    lines = [d["line_number"] for d in details]
                    strays.append({"importer": importer, "imported": imported, "lines": lines})
        return ContractCheck(kept=not strays, warnings=None, metadata={"strays": strays})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for stray in check.metadata["strays"]:
            where = ", ".join(f"l.{line}" for line in stray["lines"])
            output.print_error(
                f"{stray['importer']} imports {stray['imported']} ({where}):"
                " neither the standard library nor allowed",
                bold=False,
            )
            output.new_line()
