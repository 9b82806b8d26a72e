"""A local HBase server: one process that keeps its tables in a RocksDB
directory and speaks HBase 2.6.1's Thrift1 and Thrift2 APIs, so happybase,
any client generated from HBase's IDL, and HBase's own Java client (through
the Thrift2 port) talk to it as to a real HBase Thrift server.

Three ways to run one:

* the command, ``python -m localhbase --data DIR [--port 9090]
  [--thrift2-port PORT] [--ready-file FILE]`` (:func:`main`; :func:`serve`
  and :func:`build_parser` are what it is made of);
* as a child process of your own: :func:`command` is its command line, and
  :func:`read_ready` reads the :class:`Address` it writes to its ready file
  once it listens;
* inside this process: ``with LocalHBase(data) as hbase:`` serves
  ``hbase.port`` (Thrift1) and ``hbase.thrift2_port`` from threads until the
  block ends.

:class:`Store` is the storage underneath, for reading or seeding a data
directory with no server (the directory must not be open in a server).
Everything else in the package is its inside, and may change.
"""

from __future__ import annotations

from .launch import Address, command, read_ready
from .server import LocalHBase, build_parser, main, serve
from .store import FamilyDescriptor, Store

__version__ = "0.1.0"

__all__ = [
    "Address",
    "FamilyDescriptor",
    "LocalHBase",
    "Store",
    "__version__",
    "build_parser",
    "command",
    "main",
    "read_ready",
    "serve",
]
