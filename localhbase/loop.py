"""One thread serving every client connection of a Thrift port (epoll).

A thread per connection made the local server's CPU the limit with several
clients: each request handed the GIL between threads twice, so a call cost
the server more CPU with several clients than with one, the extra mostly
spent waking threads and waiting on locks. Here one thread reads whatever
every ready socket has, decodes each whole request with thriftpy2's Cython
protocol, runs it and sends the reply, so the Python work is all that is
left.

The calls that may take seconds (creating, dropping, truncating tables,
compactions, family and namespace changes: :data:`SLOW_CALLS`) run on a small
thread pool instead, so a client dropping a large table does not hold up
another's gets; that connection reads nothing more until its reply is sent,
as a Thrift client waits for each reply anyway.

No library does this: thriftpy2's own servers are a thread per connection,
or asyncio with its pure-Python protocol. The binary protocol (HBase's
Thrift servers are unframed) does not say how long a request is, so a
request is decoded from the bytes received so far, and decoded again from
its start once more have come if they ran out; a bulk request that is
partly here is read to its end as it is decoded (:class:`_Received`).
A server may also give each connection a fast path (:data:`FastPath`) that
is asked first and answers the requests it takes from their bytes; it
waits, without blocking the loop, for the rest of one that came in part.
"""

from __future__ import annotations

import contextlib
import logging
import select
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from thriftpy2.protocol import TCyBinaryProtocolFactory
from thriftpy2.thrift import TApplicationException, TProcessor
from thriftpy2.transport import TCyBufferedTransport, TCyMemoryBuffer

from localhbase import argcheck

log = logging.getLogger("localhbase")

# Admin calls of both APIs that may run for seconds (a table's range
# compacted away, a family's cells dropped): run on the pool, not the loop.
SLOW_CALLS = frozenset(
    {
        "createTable",
        "deleteTable",
        "truncateTable",
        "enableTable",
        "disableTable",
        "compact",
        "majorCompact",
        "addColumnFamily",
        "deleteColumnFamily",
        "modifyColumnFamily",
        "modifyTable",
        "createNamespace",
        "modifyNamespace",
        "deleteNamespace",
    }
)
SLOW_THREADS = 4
# A peer that hung up or failed is read, to find it gone.
_READABLE = select.EPOLLIN | select.EPOLLHUP | select.EPOLLERR
# A request of which this much has come is read to its end by the decoder,
# which waits up to BULK_WAIT seconds in all for the rest (see _Received):
# the longest one client may hold up the others.
BULK_REQUEST = 16 * 1024
BULK_WAIT = 0.05
# The most read from one socket before the loop turns to the others.
READ_CHUNK = 256 * 1024
# Thrift's binary protocol, as HBase's Thrift servers and happybase speak it.
_PROTOCOL = TCyBinaryProtocolFactory()
# How a call (version 1, CALL) starts in it.
_CALL_HEAD = b"\x80\x01\x00\x01"


class _Incomplete(Exception):
    """The bytes received so far end inside a request."""


class Wait:
    """What a fast path answers for a request it takes that is not all here."""


WAIT = Wait()
# A connection's fast path, given the bytes it has received: None (not a
# request it takes: the processor decodes it), WAIT, or the request's
# length and the reply to send, the request answered.
FastPath = Callable[[bytearray], "tuple[int, bytes] | Wait | None"]


class _Received:
    """The transport a request is decoded from: a connection's received bytes.

    It hands them to thriftpy2's buffered transport ``cap`` bytes at a time
    (more would overrun its buffer). When it has none left it raises
    :class:`_Incomplete`, so a request cut short is decoded again, whole,
    later; or, given a ``deadline`` (``time.monotonic()``), it first waits
    until then for more from ``sock``, keeping them in ``data`` too. The loop allows that for a bulk
    request already half here: its client is sending the rest now (happybase
    sends a batch as it encodes it), and decoding it again from the start
    each time more came cost a 1,000-row batch nearly twice its decode.
    """

    __slots__ = ("data", "deadline", "pos", "sock")

    def __init__(self, data: bytearray, sock: socket.socket, deadline: float) -> None:
        self.data = data
        self.pos = 0
        self.sock = sock
        self.deadline = deadline

    def read(self, cap: int) -> bytes:
        if self.pos >= len(self.data):
            wait = self.deadline - time.monotonic()
            if wait <= 0:
                raise _Incomplete
            self.sock.settimeout(wait)
            try:
                more = self.sock.recv(max(cap, READ_CHUNK))
            except OSError:  # timed out, or the peer is gone: the loop sees which
                raise _Incomplete from None
            finally:
                self.sock.setblocking(False)
            if not more:
                raise _Incomplete  # the loop's next read finds the peer gone
            self.data += more
        chunk = bytes(self.data[self.pos : self.pos + cap])
        self.pos += len(chunk)
        return chunk


class _Conn:
    __slots__ = (
        "busy",
        "closed",
        "deaf",
        "events",
        "fast",
        "fd",
        "inbuf",
        "last",
        "outbuf",
        "sock",
    )

    def __init__(self, sock: socket.socket, fast: FastPath | None) -> None:
        self.sock = sock
        self.fast = fast
        self.fd = sock.fileno()
        self.inbuf = bytearray()
        self.outbuf = bytearray()
        self.busy = False  # a slow call of this connection is on the pool
        self.last = time.monotonic()
        self.closed = False
        # After a call refused as HBase refuses it (argcheck), HBase's server
        # is left reading inside the next call and answers nothing more.
        self.deaf = False
        self.events = 0  # what epoll watches the socket for


class LoopServer:
    """Serve ``processor`` on the listening socket ``sock`` from one thread
    (:meth:`serve_forever`), closing connections idle ``idle_timeout``
    seconds, as HBase's Thrift server does (``None``: never).

    ``fast_path``, if given, makes each connection a :data:`FastPath`,
    asked about every request before the processor is. ``encode``, if
    given, may write a reply itself from a call's ``(api, seqid, result)``
    (its value in ``result.success``); None leaves it to the processor."""

    def __init__(
        self,
        sock: socket.socket,
        processor: TProcessor,
        idle_timeout: float | None,
        fast_path: Callable[[], FastPath] | None = None,
        encode: Callable[[str, int, Any], bytes | None] | None = None,
    ) -> None:
        self.sock = sock
        self.processor = processor
        self._fast_path = fast_path
        self._encode = encode
        self.idle_timeout = idle_timeout
        self._epoll = select.epoll()
        self._conns: dict[int, _Conn] = {}  # by file descriptor
        self._stopping = False
        self._pool = ThreadPoolExecutor(SLOW_THREADS, thread_name_prefix="localhbase-admin")
        # Replies of slow calls, handed back to the loop, which a write to
        # the wake-up socket pair rouses.
        self._done: list[tuple[_Conn, bytes | None]] = []
        self._done_lock = threading.Lock()
        self._chunk = bytearray(READ_CHUNK)
        self._chunk_view = memoryview(self._chunk)
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)

    # -- the loop -------------------------------------------------------------

    def serve_forever(self) -> None:
        self.sock.setblocking(False)
        listening, wake = self.sock.fileno(), self._wake_r.fileno()
        self._epoll.register(listening, select.EPOLLIN)
        self._epoll.register(wake, select.EPOLLIN)
        # Idle connections are looked for a few times per timeout.
        every = min(1.0, self.idle_timeout / 4) if self.idle_timeout else 1.0
        next_sweep = time.monotonic() + every
        try:
            while not self._stopping:
                for fd, mask in self._epoll.poll(every):
                    conn = self._conns.get(fd)
                    if conn is not None:
                        if mask & select.EPOLLOUT:
                            self._flush(conn)
                        if mask & _READABLE and not conn.closed:
                            self._read(conn)
                    elif fd == listening:
                        self._accept()
                    elif fd == wake:
                        self._finish_slow_calls()
                now = time.monotonic()
                if now >= next_sweep:
                    self._close_idle(now)
                    next_sweep = now + every
        finally:
            for conn in list(self._conns.values()):
                self._close(conn)
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._epoll.close()
            self._wake_r.close()
            self._wake_w.close()

    def shutdown(self) -> None:
        """Stop serving: the loop closes every connection and returns."""
        self._stopping = True
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                if self._stopping:
                    return
                raise
            client.setblocking(False)
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = _Conn(client, self._fast_path() if self._fast_path else None)
            self._conns[conn.fd] = conn
            self._epoll.register(conn.fd, select.EPOLLIN)
            conn.events = select.EPOLLIN

    def _close(self, conn: _Conn) -> None:
        if conn.closed:
            return
        conn.closed = True
        del self._conns[conn.fd]
        if conn.events:
            self._epoll.unregister(conn.fd)
        with contextlib.suppress(OSError):
            conn.sock.close()

    def _close_idle(self, now: float) -> None:
        if not self.idle_timeout:
            return
        deadline = now - self.idle_timeout
        for conn in [c for c in self._conns.values() if c.last < deadline and not c.busy]:
            self._close(conn)

    # -- requests ---------------------------------------------------------------

    def _read(self, conn: _Conn) -> None:
        # Into one buffer of the loop's: recv() would make a READ_CHUNK-sized
        # bytes object for every request, however small. Whatever a read
        # that fills it leaves, epoll reports again.
        try:
            n = conn.sock.recv_into(self._chunk)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._close(conn)
            return
        if not n:
            self._close(conn)
            return
        conn.inbuf += self._chunk_view[:n]
        conn.last = time.monotonic()
        self._serve(conn)

    def _serve(self, conn: _Conn) -> None:
        """Answer every whole request ``conn`` has sent, in order."""
        if conn.deaf:
            conn.inbuf.clear()
        while conn.inbuf and not conn.busy and not conn.closed:
            if conn.fast is not None:
                answer = conn.fast(conn.inbuf)
                if isinstance(answer, Wait):
                    break
                if answer is not None:
                    used, answered = answer
                    del conn.inbuf[:used]
                    conn.outbuf += answered
                    continue
            bulk = len(conn.inbuf) >= BULK_REQUEST
            deadline = time.monotonic() + BULK_WAIT if bulk else 0.0
            received = _Received(conn.inbuf, conn.sock, deadline)
            trans = TCyBufferedTransport(received)
            iprot = _PROTOCOL.get_protocol(trans)
            try:
                api, seqid, result, call = self.processor.process_in(iprot)
            except _Incomplete:
                # A call cut short by the next one can read as one that is
                # not all here yet: look where the next call's header shows.
                if conn.inbuf.find(_CALL_HEAD, 1) > 0:
                    self._refused(conn)
                break
            except Exception:
                if self._refused(conn):
                    break
                # A request the protocol layer could not even decode: HBase
                # drops such a connection too. The server goes on.
                log.exception("dropping client connection")
                self._close(conn)
                return
            # Bytes the transport read past this request (a client that sent
            # the next one without waiting) go back in front of the rest:
            # those here, not any still to come.
            received.deadline = 0.0
            rest = _unread(trans)
            used = received.pos - len(rest)
            # thriftpy2 ends a call cut short inside the next one's header;
            # a whole call is followed by nothing or by the next header.
            if (
                used < len(conn.inbuf)
                and conn.inbuf[used : used + 2] != _CALL_HEAD[:2]
                and self._refused(conn)
            ):
                break
            del conn.inbuf[: received.pos]
            if rest:
                conn.inbuf[:0] = rest
            if call is not None and api in SLOW_CALLS:
                conn.busy = True
                self._pool.submit(self._slow_call, conn, api, seqid, result, call)
                break
            reply = self._reply(api, seqid, result, call)
            if reply is None:
                self._close(conn)
                return
            conn.outbuf += reply
        self._flush(conn)

    def _refused(self, conn: _Conn) -> bool:
        """Whether HBase's server would refuse the call at the start of
        ``conn.inbuf`` as it reads its arguments; if so, answer as it does."""
        try:
            found = argcheck.refusal(conn.inbuf, self.processor._service)
        except argcheck.Short:
            return False
        if found is None:
            return False
        api, seqid, why = found
        if why.message is None:
            self._close(conn)
            return True
        out = TCyMemoryBuffer()
        error = TApplicationException(argcheck.PROTOCOL_ERROR, why.message)
        self.processor.send_exception(_PROTOCOL.get_protocol(out), api, error, seqid)
        conn.outbuf += out.getvalue()
        conn.inbuf.clear()
        conn.deaf = True
        return True

    def _reply(self, api: str, seqid: int, result: Any, call: Any) -> bytes | None:
        return write_reply(self.processor, api, seqid, result, call, self._encode)

    def _slow_call(self, conn: _Conn, api: str, seqid: int, result: Any, call: Any) -> None:
        reply = self._reply(api, seqid, result, call)
        with self._done_lock:
            self._done.append((conn, reply))
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")

    def _finish_slow_calls(self) -> None:
        with contextlib.suppress(OSError):
            while self._wake_r.recv(4096):
                pass
        with self._done_lock:
            done, self._done = self._done, []
        for conn, reply in done:
            if conn.closed:
                continue
            conn.busy = False
            conn.last = time.monotonic()
            if reply is None:
                self._close(conn)
                continue
            conn.outbuf += reply
            self._serve(conn)

    def _flush(self, conn: _Conn) -> None:
        """Send what ``conn``'s replies hold; wait for the socket if it is full."""
        while conn.outbuf:
            try:
                sent = conn.sock.send(conn.outbuf)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                self._close(conn)
                return
            del conn.outbuf[:sent]
        if conn.closed:
            return
        # Busy, a connection reads nothing until its slow call's reply.
        events = 0 if conn.busy else select.EPOLLIN
        if conn.outbuf:
            events |= select.EPOLLOUT
        if events == conn.events:
            return
        if not conn.events:
            self._epoll.register(conn.fd, events)
        elif not events:
            self._epoll.unregister(conn.fd)
        else:
            self._epoll.modify(conn.fd, events)
        conn.events = events


def write_reply(
    processor: TProcessor,
    api: str,
    seqid: int,
    result: Any,
    call: Any,
    encode: Callable[[str, int, Any], bytes | None] | None = None,
) -> bytes | None:
    """The reply to one request ``processor.process_in`` decoded, as
    TProcessor.process writes it (or ``encode``, given, where it writes it
    itself); None where the call raised what its IDL does not declare."""
    out = TCyMemoryBuffer()
    oprot = _PROTOCOL.get_protocol(out)
    try:
        if isinstance(result, TApplicationException):
            processor.send_exception(oprot, api, result, seqid)
            return bytes(out.getvalue())
        try:
            result.success = call()
        except TApplicationException as e:
            processor.send_exception(oprot, api, e, seqid)
            return bytes(out.getvalue())
        except Exception as e:
            if not processor.handle_exception(e, result):
                raise
        else:
            encoded = encode(api, seqid, result) if encode else None
            if encoded is not None:
                return encoded
        processor.send_result(oprot, api, result, seqid)
    except Exception:
        log.exception("%s failed; dropping the client connection", api)
        return None
    return bytes(out.getvalue())


def _unread(trans: TCyBufferedTransport) -> bytes:
    """Whatever ``trans`` holds that its request did not use (nearly always
    nothing: Thrift clients wait for each reply before the next request)."""
    rest = bytearray()
    with contextlib.suppress(_Incomplete):
        while True:
            rest += trans.read(1)
    return bytes(rest)
