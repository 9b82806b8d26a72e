"""An import-linter contract type: no import cycle anywhere among the
contract's packages, module by module, across package borders too.

import-linter's own ``acyclic_siblings`` compares only the direct imports
between siblings of one package, so a cycle that leaves the package and comes
back (feeds.services.fanout -> feeds.services.queue -> worker.tasks ->
feeds.services.fanout, as it once was) passes it. This one asks grimp, for
each import a -> b, whether any chain leads from b back to a.
"""

from __future__ import annotations

import grimp
from importlinter import Contract, ContractCheck, fields, output


class AcyclicContract(Contract):
    """``containers``: the packages whose modules must import in no circle."""

    type_name = "acyclic"

    containers = fields.ListField(subfield=fields.StringField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        containers: list[str] = self.containers  # type: ignore[assignment]
        modules = {
            m for c in containers for m in {c, *graph.find_descendants(c)} if m in graph.modules
        }
        cycles: dict[frozenset[str], tuple[str, ...]] = {}
        for importer in sorted(modules):
            for imported in sorted(graph.find_modules_directly_imported_by(importer) & modules):
                back = graph.find_shortest_chain(imported, importer)
                if back is not None:
                    cycle = (importer, *back)
                    cycles.setdefault(frozenset(cycle), cycle)
        found = sorted(cycles.values())
        return ContractCheck(kept=not found, metadata={"cycles": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        cycles: list[tuple[str, ...]] = check.metadata["cycles"]
        for cycle in cycles:
            output.print_error(" -> ".join(cycle), bold=False)
            output.new_line()
