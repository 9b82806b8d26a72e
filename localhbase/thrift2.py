"""HBase's Thrift2 API (THBaseService, ``idl/hbase2.thrift``) over :class:`Store`.

The local server serves it on a second port (``--thrift2-port``), as HBase
serves it from its own ``thrift2.ThriftServer``: same binary protocol and
buffered transport as the Thrift1 port. The data calls live here; the admin
calls (tables, namespaces, regions) in :mod:`localhbase.thrift2_admin`.

Errors are what HBase 2.6's ``ThriftHBaseServiceHandler`` sends: a
``TIOError`` carrying the Java exception's message and whether a retry may
help, ``TIllegalArgument`` for a bad scanner id.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import thriftpy2
from thriftpy2.thrift import TApplicationException, TProcessor

from .store import Store, StoreError
from .thrift2_admin import AdminCalls

IDL = Path(__file__).with_name("idl") / "hbase2.thrift"
log = logging.getLogger("localhbase.thrift2")

T2: Any = thriftpy2.load(str(IDL), module_name="localhbase_hbase2_thrift")


class Thrift2Handler(AdminCalls):
    """Implements the calls of the ``THBaseService`` Thrift2 service."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def getThriftServerType(self) -> int:
        # HBase's Thrift1 server answers ONE.
        return int(T2.TThriftServerType.TWO)

    def getClusterId(self) -> str:
        return self.store.cluster_id()


class _SafeHandler:
    """Turns every failure of a call into the Thrift2 error HBase would send;
    a bug here never kills the connection or the server."""

    def __init__(self, handler: Thrift2Handler) -> None:
        self._handler = handler

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._handler, name)

        def call(*args: Any) -> Any:
            try:
                return method(*args)
            except (T2.TIOError, T2.TIllegalArgument, TApplicationException):
                raise
            except StoreError as exc:
                raise T2.TIOError(message=str(exc), canRetry=False) from None
            except Exception as exc:
                log.exception("thrift2 %s failed", name)
                raise T2.TIOError(
                    message=f"java.io.IOException: {type(exc).__name__}: {exc}", canRetry=True
                ) from None

        return call


def thrift2_processor(store: Store) -> TProcessor:
    """The processor of the Thrift2 port, over ``store``."""
    return TProcessor(T2.THBaseService, _SafeHandler(Thrift2Handler(store)))
