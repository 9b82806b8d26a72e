# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""A bulk put's or bulk delete's Thrift1 request, encoded in compiled code
on the client; and the rows of a scan's reply (or their keys alone), read
in compiled code.

happybase's ``Batch`` makes a Thrift ``Mutation`` per cell and a
``BatchMutation`` per row in Python, and thriftpy2 then walks them to write
the request: work per cell that a bulk writer (``loaddemo``, the fan-out)
pays for every row. These functions write the same bytes
(``mutateRows`` or ``mutateRowsTs``, TBinaryProtocol, strict) straight from
the rows' keys and cells, for :mod:`storage.ops` to send on the
connection's own transport; the reply is read by thriftpy2 as before.

No library writes a Thrift call from plain tuples, or reads a reply into
them; hence this module.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

from thriftpy2.transport.cybase cimport CyTransportBase

cdef enum:
    T_STOP = 0
    T_BOOL = 2
    T_BYTE = 3
    T_DOUBLE = 4
    T_I16 = 6
    T_I32 = 8
    T_I64 = 10
    T_STRING = 11
    T_STRUCT = 12
    T_MAP = 13
    T_SET = 14
    T_LIST = 15


cdef class _Out:
    """A growing buffer the request is written into."""

    cdef char* d
    cdef Py_ssize_t n
    cdef Py_ssize_t cap

    def __cinit__(self, Py_ssize_t size_hint):
        self.cap = max(size_hint, 256)
        self.n = 0
        self.d = <char*>malloc(self.cap)
        if self.d == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.d)

    cdef int reserve(self, Py_ssize_t more) except -1:
        cdef char* grown
        if self.n + more <= self.cap:
            return 0
        while self.n + more > self.cap:
            self.cap *= 2
        grown = <char*>realloc(self.d, self.cap)
        if grown == NULL:
            raise MemoryError()
        self.d = grown
        return 0

    cdef int raw(self, const char* s, Py_ssize_t ln) except -1:
        self.reserve(ln)
        memcpy(self.d + self.n, s, ln)
        self.n += ln
        return 0

    cdef int byte(self, int b) except -1:
        self.reserve(1)
        self.d[self.n] = <char>b
        self.n += 1
        return 0

    cdef int i32(self, long v) except -1:
        self.reserve(4)
        self.d[self.n] = <char>((v >> 24) & 0xFF)
        self.d[self.n + 1] = <char>((v >> 16) & 0xFF)
        self.d[self.n + 2] = <char>((v >> 8) & 0xFF)
        self.d[self.n + 3] = <char>(v & 0xFF)
        self.n += 4
        return 0

    cdef int i64(self, int64_t v) except -1:
        cdef int i
        self.reserve(8)
        for i in range(8):
            self.d[self.n + i] = <char>((v >> (56 - 8 * i)) & 0xFF)
        self.n += 8
        return 0

    cdef int field(self, int ftype, int fid) except -1:
        self.byte(ftype)
        self.byte((fid >> 8) & 0xFF)
        self.byte(fid & 0xFF)
        return 0

    cdef int string(self, bytes s) except -1:
        cdef Py_ssize_t ln = PyBytes_GET_SIZE(s)
        self.i32(ln)
        self.raw(PyBytes_AS_STRING(s), ln)
        return 0

    cdef int list_head(self, int etype, Py_ssize_t size) except -1:
        self.byte(etype)
        self.i32(size)
        return 0

    cdef bytes value(self):
        return PyBytes_FromStringAndSize(self.d, self.n)


cdef int mutation(_Out out, bint delete, bytes column, bytes value) except -1:
    """A Mutation as thriftpy2 writes happybase's: isDelete, column, the
    value (a put's; a delete has none), writeToWAL true (its IDL default,
    written as it is set)."""
    out.field(T_BOOL, 1)
    out.byte(1 if delete else 0)
    out.field(T_STRING, 2)
    out.string(column)
    if not delete:
        out.field(T_STRING, 3)
        out.string(value)
    out.field(T_BOOL, 4)
    out.byte(1)
    out.byte(T_STOP)
    return 0


cdef int put_head(_Out out, int seqid, bytes table, object timestamp, Py_ssize_t rows) except -1:
    name = b"mutateRowsTs" if timestamp is not None else b"mutateRows"
    out.i32(<long>0x80010001)  # strict header: version 1, a call
    out.string(name)
    out.i32(seqid)
    out.field(T_STRING, 1)
    out.string(table)
    out.field(T_LIST, 2)
    out.list_head(T_STRUCT, rows)
    return 0


cdef int put_tail(_Out out, object timestamp) except -1:
    # mutateRowsTs: 3 timestamp, 4 attributes; mutateRows: 3 attributes.
    if timestamp is not None:
        out.field(T_I64, 3)
        out.i64(<int64_t>timestamp)
    out.field(T_MAP, 4 if timestamp is not None else 3)
    out.byte(T_STRING)
    out.byte(T_STRING)
    out.i32(0)
    out.byte(T_STOP)
    return 0


cdef bytes rows_alike(int seqid, bytes table, list row_keys, _Out mutations, timestamp):
    """The request giving every row of ``row_keys`` the same ``mutations``
    (a list<Mutation>, written once and copied)."""
    cdef _Out out = _Out(64 + len(row_keys) * (mutations.n + 40))
    put_head(out, seqid, table, timestamp, len(row_keys))
    cdef bytes row
    for row in row_keys:
        out.field(T_STRING, 1)
        out.string(<bytes?>row)
        out.field(T_LIST, 2)
        out.raw(mutations.d, mutations.n)
        out.byte(T_STOP)
    put_tail(out, timestamp)
    return out.value()


cdef _Out cells_mutations(list cells):
    """The list<Mutation> putting ``cells`` ((column, value) pairs)."""
    cdef _Out mutations = _Out(256)
    cdef tuple cell
    mutations.list_head(T_STRUCT, len(cells))
    for cell in cells:
        mutation(mutations, False, <bytes?>cell[0], <bytes?>cell[1])
    return mutations


def mutate_rows_alike(int seqid, bytes table, list row_keys, list cells, timestamp) -> bytes:
    """The request putting the same ``cells`` ((column, value) pairs) in
    every row of ``row_keys``."""
    return rows_alike(seqid, table, row_keys, cells_mutations(cells), timestamp)


def mutate_tailed_rows_alike(
    int seqid, bytes table, bytes heads, Py_ssize_t width, bytes tail, list cells, timestamp
) -> bytes:
    """:func:`mutate_rows_alike` for the rows ``head + tail``, a head for
    each ``width`` bytes of ``heads``: a fan-out chunk's stream rows, its
    readers' md5s run together, with no key made in Python for each (that
    and splitting the md5s apart took a tenth of a chunk's time)."""
    cdef Py_ssize_t size = PyBytes_GET_SIZE(heads)
    if width <= 0 or size % width:
        raise ValueError(f"{size} bytes of heads are not whole heads of {width}")
    cdef Py_ssize_t rows = size // width
    cdef Py_ssize_t tail_len = PyBytes_GET_SIZE(tail)
    cdef const char* h = PyBytes_AS_STRING(heads)
    cdef const char* t = PyBytes_AS_STRING(tail)
    cdef _Out mutations = cells_mutations(cells)
    cdef _Out out = _Out(64 + rows * (mutations.n + width + tail_len + 8))
    cdef Py_ssize_t i
    put_head(out, seqid, table, timestamp, rows)
    for i in range(rows):
        out.field(T_STRING, 1)
        out.i32(width + tail_len)
        out.raw(h + i * width, width)
        out.raw(t, tail_len)
        out.field(T_LIST, 2)
        out.raw(mutations.d, mutations.n)
        out.byte(T_STOP)
    put_tail(out, timestamp)
    return out.value()


def spread_pick(bytes heads, Py_ssize_t width, unsigned long long salt, unsigned long long modulus) -> list:
    """The ``width``-byte heads of ``heads`` (run together) whose first four
    bytes, read big-endian, plus ``salt`` are a multiple of ``modulus``, in
    order: :func:`feeds.services.fanout._trims_due`'s choice, made in
    compiled code (in Python it took a tenth of a chunk's time)."""
    cdef Py_ssize_t size = PyBytes_GET_SIZE(heads)
    if width < 4 or size % width or modulus == 0:
        raise ValueError("heads of at least 4 bytes, whole, and a modulus")
    cdef const unsigned char* h = <const unsigned char*>PyBytes_AS_STRING(heads)
    cdef Py_ssize_t i
    cdef unsigned long long first
    cdef list picked = []
    for i in range(0, size, width):
        first = (<unsigned long long>h[i] << 24) | (h[i + 1] << 16) | (h[i + 2] << 8) | h[i + 3]
        if (first + salt) % modulus == 0:
            picked.append(PyBytes_FromStringAndSize(<const char*>h + i, width))
    return picked


def delete_rows_alike(int seqid, bytes table, list row_keys, list columns, timestamp) -> bytes:
    """The request deleting the same ``columns`` (a family, or
    ``family:qualifier``) in every row of ``row_keys``: what happybase's
    ``Batch.delete`` sends for each row, its columns the table's families
    when it is given none."""
    cdef _Out mutations = _Out(256)
    mutations.list_head(T_STRUCT, len(columns))
    for column in columns:
        mutation(mutations, True, <bytes?>column, None)
    return rows_alike(seqid, table, row_keys, mutations, timestamp)


def mutate_rows(int seqid, bytes table, list rows, timestamp) -> bytes:
    """The request putting each row's cells: ``rows`` of (row key, dict of
    column to value), in that order, as happybase's Batch sends them."""
    cdef _Out out = _Out(64 + len(rows) * 160)
    cdef tuple entry
    cdef dict cells
    put_head(out, seqid, table, timestamp, len(rows))
    for entry in rows:
        cells = <dict?>entry[1]
        out.field(T_STRING, 1)
        out.string(<bytes?>entry[0])
        out.field(T_LIST, 2)
        out.list_head(T_STRUCT, len(cells))
        for column, value in cells.items():
            mutation(out, False, <bytes?>column, <bytes?>value)
        out.byte(T_STOP)
    put_tail(out, timestamp)
    return out.value()


def scanner_get_list(int seqid, int scanner, int rows) -> bytes:
    """The ``scannerGetList(id, nbRows)`` call, as thriftpy2 writes it."""
    cdef _Out out = _Out(64)
    out.i32(<long>0x80010001)
    out.string(b"scannerGetList")
    out.i32(seqid)
    out.field(T_I32, 1)
    out.i32(scanner)
    out.field(T_I32, 2)
    out.i32(rows)
    out.byte(T_STOP)
    return out.value()


cdef class _In:
    """Reads a reply from thriftpy2's compiled transport, as its protocol
    does (``c_read``), without making an object per field."""

    cdef CyTransportBase t
    cdef unsigned char b[8]

    def __cinit__(self, CyTransportBase trans):
        self.t = trans

    cdef int byte(self) except -1:
        self.t.c_read(1, <char*>self.b)
        return self.b[0]

    cdef int i16(self) except? -1:
        self.t.c_read(2, <char*>self.b)
        return <short>((self.b[0] << 8) | self.b[1])

    cdef int i32(self) except? -1:
        self.t.c_read(4, <char*>self.b)
        return <int>((<unsigned int>self.b[0] << 24) | (self.b[1] << 16) | (self.b[2] << 8) | self.b[3])

    cdef bytes string(self):
        cdef int n = self.i32()
        if n < 0:
            raise ValueError(f"negative length in a reply: {n}")
        return self.t.get_string(n) if n else b""

    cdef int skip(self, int ftype) except -1:
        """Read past a value of type ``ftype``."""
        cdef int k, n, a, b
        if ftype == T_BOOL or ftype == T_BYTE:
            self.byte()
        elif ftype == T_I16:
            self.i16()
        elif ftype == T_I32:
            self.i32()
        elif ftype == T_I64 or ftype == T_DOUBLE:
            self.t.c_read(8, <char*>self.b)
        elif ftype == T_STRING:
            self.string()
        elif ftype == T_STRUCT:
            self.skip_fields()
        elif ftype == T_MAP:
            a = self.byte()
            b = self.byte()
            n = self.i32()
            for k in range(n):
                self.skip(a)
                self.skip(b)
        elif ftype == T_LIST or ftype == T_SET:
            a = self.byte()
            n = self.i32()
            for k in range(n):
                self.skip(a)
        else:
            raise ValueError(f"unknown Thrift type in a reply: {ftype}")
        return 0

    cdef int skip_fields(self) except -1:
        """Read past the rest of a struct, its STOP included."""
        cdef int ftype
        while True:
            ftype = self.byte()
            if ftype == T_STOP:
                return 0
            self.i16()
            self.skip(ftype)


cdef dict _read_cells(_In r):
    """A TRowResult's ``columns`` (map<Text, TCell>) as happybase's scan
    gives them: column to value (the cells' timestamps are read past)."""
    cdef int ktype = r.byte()
    cdef int vtype = r.byte()
    cdef int n = r.i32()
    cdef int k, ftype
    cdef dict cells = {}
    cdef bytes column, value
    if ktype != T_STRING or vtype != T_STRUCT:
        raise ValueError(f"not a map of TCell: key type {ktype}, value type {vtype}")
    for k in range(n):
        column = r.string()
        value = b""
        while True:
            ftype = r.byte()
            if ftype == T_STOP:
                break
            if r.i16() == 1 and ftype == T_STRING:
                value = r.string()
            else:
                r.skip(ftype)
        cells[column] = value
    return cells


cdef object _read_rows(CyTransportBase trans, bint with_cells):
    cdef _In r = _In(trans)
    cdef unsigned int version = <unsigned int>r.i32()
    cdef int ftype, fid, etype, n, k, rtype, rid
    cdef list found = None
    cdef bytes row
    cdef dict cells
    if (version >> 16) != 0x8001:
        raise ValueError(f"not a strict binary reply: {version:#x}")
    r.string()  # the call's name
    r.i32()  # its seqid
    if (version & 0xFF) == 3:  # TMessageType.EXCEPTION
        return 0
    while True:
        ftype = r.byte()
        if ftype == T_STOP:
            return found
        fid = r.i16()
        if fid == 0 and ftype == T_LIST:
            etype = r.byte()
            n = r.i32()
            if etype != T_STRUCT:
                raise ValueError(f"not a list of TRowResult: element type {etype}")
            found = []
            for k in range(n):
                row = b""
                cells = {}
                while True:
                    rtype = r.byte()
                    if rtype == T_STOP:
                        break
                    rid = r.i16()
                    if rid == 1 and rtype == T_STRING:
                        row = r.string()
                    elif rid == 2 and rtype == T_MAP and with_cells:
                        cells = _read_cells(r)
                    else:
                        r.skip(rtype)
                found.append((row, cells) if with_cells else row)
        elif ftype == T_STRUCT:
            return fid
        else:
            r.skip(ftype)


def read_row_keys(CyTransportBase trans):
    """Read a ``scannerGetList`` reply from ``trans`` up to its result's
    fields, keeping only each row's key (a trim's scan carries keys only,
    and needs nothing else).

    Returns the keys; or 0 when the reply is a TApplicationException (its
    message header read, its struct not), or the result field's id when
    it holds one of the call's exceptions (its struct not read): the caller
    reads that struct with thriftpy2's protocol, then :func:`finish_result`.
    Returns None for a reply with no result.
    """
    return _read_rows(trans, False)


def read_rows(CyTransportBase trans):
    """Read a ``scannerGetList`` reply from ``trans`` as :func:`read_row_keys`
    does, keeping each row as happybase's scan yields it: (key, {column:
    value}) from its ``columns`` (its ``sortedColumns``, asked for by no
    scan that reads this way, are read past), without the TRowResult and
    TCell per cell that thriftpy2 makes and the dict happybase then makes
    from them."""
    return _read_rows(trans, True)


def finish_result(CyTransportBase trans):
    """Read past the rest of a result struct: its fields after an
    exception's, and its STOP."""
    _In(trans).skip_fields()
