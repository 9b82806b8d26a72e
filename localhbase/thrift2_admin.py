"""The admin half of the local server's Thrift2 API: tables, namespaces and
regions (THBaseService's DDL and region calls), mixed into
:class:`localhbase.thrift2.Thrift2Handler`."""

from __future__ import annotations

from .store import Store


class AdminCalls:
    """THBaseService's admin calls over :attr:`store`."""

    store: Store
