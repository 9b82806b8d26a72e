# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The local server's two busiest wire paths in compiled code: bulk puts
read from a request's bytes straight into RocksDB keys, and rows written
straight from cells into a reply's bytes.

**Bulk puts.** Decoding a ``mutateRows`` call with thriftpy2 makes three
Python objects per cell (a BatchMutation, a Mutation, their bytes) that the
server's Python loop then takes apart again to build each cell's key. For a
fan-out chunk, that decoding and loop cost the server's one thread more
than RocksDB's own write.
This reads such a call in two passes over its bytes:

1. :class:`RowsScanner` checks that a whole call is here and that every
   mutation in it is a put or delete this path can take (anything else, a
   field it does not know, an empty row, goes to thriftpy2 and the
   handler, unchanged). It keeps its place between calls, so a request
   that comes in pieces is not read again from its start.
2. :func:`put_rows` builds each cell's key as ``localhbase.encoding`` does
   (the escaped row, family and qualifier, then the timestamp and type)
   and hands key and value to the store's write batch.

Every read is bounds-checked in the first pass; the second reads only what
the first checked, from the same bytes.

**Rows.** A reply of ``list<TRowResult>`` (``getRow``s, ``scannerGetList``)
took a TRowResult, a dict and a TCell per row made in Python, then walked
by thriftpy2's encoder: as much work a row as reading the row.
:func:`encode_rows` writes the same bytes from the store's cells.

No library reads a Thrift call straight into another store's keys, or
writes a Thrift reply from plain tuples; hence this module.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memchr, memcmp, memcpy

# Thrift's binary protocol: field types, and the strict message header.
cdef enum:
    T_STOP = 0
    T_BOOL = 2
    T_I32 = 8
    T_I64 = 10
    T_STRING = 11
    T_STRUCT = 12
    T_MAP = 13
    T_LIST = 15
    CALL = 1
    # localhbase.encoding's types of the delete markers a mutateRows writes.
    TYPE_DELETE_COLUMN = 12
    TYPE_DELETE_FAMILY = 14

INCOMPLETE = -1  # the call is not all here yet: wait for more bytes
GENERAL = 0  # not a call this path takes: decode it with thriftpy2
READY = 1  # a call of puts and deletes, all here: put_rows may write it

# What a read of the buffer found: ran past its end, or a shape not taken.
cdef enum:
    OK = 0
    SHORT = -1
    OTHER = -2


cdef struct Cur:
    const unsigned char* p
    Py_ssize_t pos
    Py_ssize_t n


cdef inline uint32_t u32(const unsigned char* p) noexcept nogil:
    return (<uint32_t>p[0] << 24) | (<uint32_t>p[1] << 16) | (<uint32_t>p[2] << 8) | p[3]


cdef inline int64_t i64(const unsigned char* p) noexcept nogil:
    cdef uint64_t v = 0
    cdef int i
    for i in range(8):
        v = (v << 8) | p[i]
    return <int64_t>v


cdef inline int has(Cur* c, Py_ssize_t k) noexcept nogil:
    return c.pos + k <= c.n


cdef inline int length(Cur* c, Py_ssize_t* out) noexcept nogil:
    """A 4-byte length or count; OTHER if negative."""
    if not has(c, 4):
        return SHORT
    cdef int v = <int>u32(c.p + c.pos)
    if v < 0:
        return OTHER
    c.pos += 4
    out[0] = v
    return OK


cdef inline int string(Cur* c, Py_ssize_t* off, Py_ssize_t* ln) noexcept nogil:
    cdef int r = length(c, ln)
    if r != OK:
        return r
    if not has(c, ln[0]):
        return SHORT
    off[0] = c.pos
    c.pos += ln[0]
    return OK


cdef inline int field(Cur* c, int* ftype, int* fid) noexcept nogil:
    if not has(c, 1):
        return SHORT
    ftype[0] = c.p[c.pos]
    c.pos += 1
    if ftype[0] == T_STOP:
        return OK
    if not has(c, 2):
        return SHORT
    fid[0] = (c.p[c.pos] << 8) | c.p[c.pos + 1]
    c.pos += 2
    return OK


cdef int check_mutation(Cur* c) noexcept nogil:
    """A Mutation, a put or a delete: 1 isDelete, 2 column, 3 value, 4 writeToWAL."""
    cdef int ftype = 0, fid = 0, r
    cdef Py_ssize_t off, ln
    cdef int column = 0
    while True:
        r = field(c, &ftype, &fid)
        if r != OK:
            return r
        if ftype == T_STOP:
            return OK if column else OTHER
        if ftype == T_BOOL and (fid == 1 or fid == 4):
            if not has(c, 1):
                return SHORT
            c.pos += 1
        elif ftype == T_STRING and (fid == 2 or fid == 3):
            r = string(c, &off, &ln)
            if r != OK:
                return r
            if fid == 2:
                column = 1
        else:
            return OTHER


cdef int check_batch(Cur* c) noexcept nogil:
    """A BatchMutation: 1 row (not empty), then 2 its mutations, each once."""
    cdef int ftype = 0, fid = 0, r, etype
    cdef Py_ssize_t off, ln, size, k
    cdef int seen = 0  # the last field read: 0 none, 1 the row, 2 the mutations
    while True:
        r = field(c, &ftype, &fid)
        if r != OK:
            return r
        if ftype == T_STOP:
            return OK if seen >= 1 else OTHER
        if fid == 1 and ftype == T_STRING and seen == 0:
            r = string(c, &off, &ln)
            if r != OK:
                return r
            if ln == 0:
                return OTHER  # HBase refuses it: the handler says how
            seen = 1
        elif fid == 2 and ftype == T_LIST and seen == 1:
            if not has(c, 1):
                return SHORT
            etype = c.p[c.pos]
            c.pos += 1
            r = length(c, &size)
            if r != OK:
                return r
            if etype != T_STRUCT:
                return OTHER
            for k in range(size):
                r = check_mutation(c)
                if r != OK:
                    return r
            seen = 2
        else:
            return OTHER


cdef int strings(Cur* c, list out) except -2:
    """A list<Text> into ``out``: OK, SHORT or OTHER."""
    cdef Py_ssize_t size, k, off, ln
    cdef int r
    if not has(c, 1):
        return SHORT
    cdef int etype = c.p[c.pos]
    c.pos += 1
    r = length(c, &size)
    if r != OK:
        return r
    if etype != T_STRING:
        return OTHER
    for k in range(size):
        r = string(c, &off, &ln)
        if r != OK:
            return r
        out.append(PyBytes_FromStringAndSize(<const char*>c.p + off, ln))
    return OK


cdef int skip_attributes(Cur* c) noexcept nogil:
    cdef Py_ssize_t size, k, off, ln
    cdef int r
    if not has(c, 2):
        return SHORT
    if c.p[c.pos] != T_STRING or c.p[c.pos + 1] != T_STRING:
        return OTHER
    c.pos += 2
    r = length(c, &size)
    if r != OK:
        return r
    for k in range(2 * size):
        r = string(c, &off, &ln)
        if r != OK:
            return r
    return OK


cdef int call_head(Cur* c, Py_ssize_t* name_off, Py_ssize_t* name_len, int* seqid) noexcept:
    """A call's strict header (version 1, a call), its name and seqid, from
    ``c.p`` (at least 8 bytes): OK, SHORT or OTHER."""
    c.pos = 4
    if c.p[0] != 0x80 or c.p[1] != 0x01 or c.p[3] != CALL:
        return OTHER
    cdef int r = string(c, name_off, name_len)
    if r != OK:
        return r
    if not has(c, 4):
        return SHORT
    seqid[0] = <int>u32(c.p + c.pos)
    c.pos += 4
    return OK


cdef class RowsScanner:
    """Pass one, for one connection: is a whole ``mutateRows(Ts)`` call of
    puts at the start of its buffer? :meth:`scan` returns READY (its parts
    are then in the attributes), INCOMPLETE or GENERAL.

    After INCOMPLETE it remembers the last whole BatchMutation, and the
    next scan (of the same call, more of it come) goes on from there;
    :meth:`reset` forgets it once the call is answered either way.
    """

    cdef readonly Py_ssize_t end  # the call's length in bytes
    cdef readonly int seqid
    cdef readonly bytes name
    cdef readonly bytes table
    cdef readonly object timestamp  # mutateRowsTs's; None for mutateRows
    cdef readonly Py_ssize_t rows_at  # where the list of BatchMutations starts
    cdef Py_ssize_t resume_pos  # past the last whole BatchMutation seen
    cdef Py_ssize_t resume_done  # how many of them

    def __cinit__(self):
        self.reset()

    def reset(self) -> None:
        self.resume_pos = 0
        self.resume_done = 0
        self.end = 0
        self.name = None
        self.table = None
        self.timestamp = None

    def scan(self, const unsigned char[::1] buf) -> int:
        cdef Cur c
        c.n = buf.shape[0]
        if c.n < 8:
            return INCOMPLETE
        c.p = &buf[0]
        cdef Py_ssize_t off, ln, toff = -1, tln = 0, size = 0, k, done
        cdef int seqid = 0, ftype = 0, fid = 0, etype
        cdef int r = call_head(&c, &off, &ln, &seqid)
        if r == SHORT:
            return INCOMPLETE
        if r != OK:
            return self._general()
        cdef bint with_ts
        if ln == 12 and memcmp(c.p + off, b"mutateRowsTs", 12) == 0:
            with_ts = True
        elif ln == 10 and memcmp(c.p + off, b"mutateRows", 10) == 0:
            with_ts = False
        else:
            return self._general()
        cdef int64_t ts = 0
        cdef bint have_ts = False
        cdef Py_ssize_t rows_at = -1
        cdef int attributes = 4 if with_ts else 3
        while True:
            r = field(&c, &ftype, &fid)
            if r != OK:
                break
            if ftype == T_STOP:
                break
            if fid == 1 and ftype == T_STRING:
                r = string(&c, &toff, &tln)
            elif fid == 2 and ftype == T_LIST and rows_at < 0:
                rows_at = c.pos
                if not has(&c, 1):
                    r = SHORT
                    break
                etype = c.p[c.pos]
                c.pos += 1
                r = length(&c, &size)
                if r != OK:
                    break
                if etype != T_STRUCT:
                    r = OTHER
                    break
                done = 0
                if self.resume_pos > c.pos:
                    c.pos = self.resume_pos
                    done = self.resume_done
                for k in range(done, size):
                    self.resume_pos = c.pos
                    self.resume_done = k
                    r = check_batch(&c)
                    if r != OK:
                        break
            elif with_ts and fid == 3 and ftype == T_I64:
                if not has(&c, 8):
                    r = SHORT
                    break
                ts = i64(c.p + c.pos)
                c.pos += 8
                have_ts = True
            elif fid == attributes and ftype == T_MAP:
                r = skip_attributes(&c)
            else:
                r = OTHER
            if r != OK:
                break
        if r == SHORT:
            return INCOMPLETE
        if r != OK or toff < 0 or rows_at < 0 or (with_ts and not have_ts):
            return self._general()
        self.end = c.pos
        self.seqid = seqid
        self.name = b"mutateRowsTs" if with_ts else b"mutateRows"
        self.table = PyBytes_FromStringAndSize(<const char*>c.p + toff, tln)
        self.timestamp = ts if with_ts else None
        self.rows_at = rows_at
        self.resume_pos = 0
        self.resume_done = 0
        return READY

    cdef int _general(self):
        self.reset()
        return GENERAL


cdef class _Buffer:
    """A growing buffer in which a cell key, or a reply, is built."""

    cdef char* d
    cdef Py_ssize_t n
    cdef Py_ssize_t cap

    def __cinit__(self):
        self.cap = 512
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

    cdef int add(self, const char* s, Py_ssize_t ln) except -1:
        self.reserve(ln)
        memcpy(self.d + self.n, s, ln)
        self.n += ln
        return 0

    cdef int esc(self, const unsigned char* s, Py_ssize_t ln) except -1:
        """``encoding.esc``: 0x00 becomes 0x00 0xFF, then the terminator 0x00 0x01."""
        cdef Py_ssize_t i
        self.reserve(2 * ln + 2)
        for i in range(ln):
            self.d[self.n] = s[i]
            self.n += 1
            if s[i] == 0:
                self.d[self.n] = <char>0xFF
                self.n += 1
        self.d[self.n] = 0
        self.d[self.n + 1] = 1
        self.n += 2
        return 0


def put_rows(
    const unsigned char[::1] buf,
    Py_ssize_t rows_at,
    bytes table_prefix,
    tuple families,
    bytes put_tail,
    put,
) -> int:
    """Pass two, over a call a RowsScanner found READY in ``buf``: ``put(key,
    value)`` for each cell, its key ``table_prefix`` + the escaped row,
    family and qualifier + ``put_tail`` (timestamp and type). A delete is a
    marker as ``Store.mutate_rows`` writes it, at the same timestamp: of
    the column (``family:qualifier``) or, with no colon, of the family,
    with an empty value. Returns the number of cells, or -1 at the first
    cell whose family is not one of ``families`` (what was put must then
    not be written)."""
    cdef Cur c
    c.p = &buf[0]
    c.n = buf.shape[0]
    c.pos = rows_at + 1
    cdef Py_ssize_t size = <int>u32(c.p + c.pos), msize, k, m, j
    c.pos += 4
    cdef Py_ssize_t roff = 0, rln = 0, coff = 0, cln = 0, voff, vln, flen, row_end = 0, cells = 0
    cdef int ftype = 0, fid = 0
    cdef const unsigned char* colon
    cdef const unsigned char* column
    cdef bytes family
    cdef bint known, delete
    cdef Py_ssize_t nfamilies = len(families)
    cdef Py_ssize_t tail_len = len(put_tail)
    cdef _Buffer key = _Buffer()
    key.add(table_prefix, len(table_prefix))
    cdef Py_ssize_t prefix_len = key.n
    for k in range(size):
        while True:
            field(&c, &ftype, &fid)
            if ftype == T_STOP:
                break
            if fid == 1:
                string(&c, &roff, &rln)
                key.n = prefix_len
                key.esc(c.p + roff, rln)
                row_end = key.n
                continue
            msize = <int>u32(c.p + c.pos + 1)
            c.pos += 5
            for m in range(msize):
                voff = -1
                vln = 0
                delete = False
                while True:
                    field(&c, &ftype, &fid)
                    if ftype == T_STOP:
                        break
                    if ftype == T_BOOL:
                        if fid == 1:
                            delete = c.p[c.pos] != 0
                        c.pos += 1
                    elif fid == 2:
                        string(&c, &coff, &cln)
                    else:
                        string(&c, &voff, &vln)
                # ``family:qualifier``; with no colon, all family (str.partition).
                column = c.p + coff
                colon = <const unsigned char*>memchr(column, 58, cln)
                flen = colon - column if colon != NULL else cln
                known = False
                for j in range(nfamilies):
                    family = <bytes>families[j]
                    if len(family) == flen and memcmp(<const char*>family, column, flen) == 0:
                        known = True
                        break
                if not known:
                    return -1
                key.n = row_end
                key.esc(column, flen)
                if colon != NULL:
                    key.esc(column + flen + 1, cln - flen - 1)
                else:
                    key.esc(column, 0)
                key.add(put_tail, tail_len)
                if delete:
                    # The put's timestamp, then the marker's type.
                    key.d[key.n - 1] = <char>(
                        255 - (TYPE_DELETE_COLUMN if colon != NULL else TYPE_DELETE_FAMILY)
                    )
                    put(PyBytes_FromStringAndSize(key.d, key.n), b"")
                    cells += 1
                    continue
                put(
                    PyBytes_FromStringAndSize(key.d, key.n),
                    PyBytes_FromStringAndSize(<const char*>c.p + voff, vln) if voff >= 0 else b"",
                )
                cells += 1
    return cells


# Field headers of the reply (type, then id), and its frame.
cdef enum:
    REPLY_HEAD = 0x80010002


cdef inline int put_i32(_Buffer out, int v) except -1:
    out.reserve(4)
    out.d[out.n] = <char>((v >> 24) & 0xFF)
    out.d[out.n + 1] = <char>((v >> 16) & 0xFF)
    out.d[out.n + 2] = <char>((v >> 8) & 0xFF)
    out.d[out.n + 3] = <char>(v & 0xFF)
    out.n += 4
    return 0


cdef inline int put_i64(_Buffer out, int64_t v) except -1:
    cdef int i
    out.reserve(8)
    for i in range(8):
        out.d[out.n + i] = <char>((v >> (56 - 8 * i)) & 0xFF)
    out.n += 8
    return 0


cdef inline int put_field(_Buffer out, int ftype, int fid) except -1:
    out.reserve(3)
    out.d[out.n] = <char>ftype
    out.d[out.n + 1] = <char>((fid >> 8) & 0xFF)
    out.d[out.n + 2] = <char>(fid & 0xFF)
    out.n += 3
    return 0


cdef inline int put_stop(_Buffer out) except -1:
    out.reserve(1)
    out.d[out.n] = 0
    out.n += 1
    return 0


cdef inline int put_list(_Buffer out, int fid, Py_ssize_t size) except -1:
    """Field ``fid``, a list of ``size`` structs: its header."""
    put_field(out, T_LIST, fid)
    out.reserve(1)
    out.d[out.n] = T_STRUCT
    out.n += 1
    put_i32(out, <int>size)
    return 0


cdef inline int put_string(_Buffer out, bytes s) except -1:
    cdef Py_ssize_t ln = PyBytes_GET_SIZE(s)
    put_i32(out, <int>ln)
    out.add(PyBytes_AS_STRING(s), ln)
    return 0


cdef inline int put_column(_Buffer out, bytes family, bytes qualifier) except -1:
    """A column's name, ``family:qualifier``, as a string."""
    cdef Py_ssize_t fl = PyBytes_GET_SIZE(family), ql = PyBytes_GET_SIZE(qualifier)
    put_i32(out, <int>(fl + 1 + ql))
    out.add(PyBytes_AS_STRING(family), fl)
    out.add(b":", 1)
    out.add(PyBytes_AS_STRING(qualifier), ql)
    return 0


cdef inline int put_cell(_Buffer out, tuple cell) except -1:
    """A TCell struct: 1 value, 2 timestamp."""
    put_field(out, T_STRING, 1)
    put_string(out, <bytes?>cell[3])
    put_field(out, T_I64, 2)
    put_i64(out, <int64_t>cell[2])
    put_stop(out)
    return 0


def encode_rows(bytes name, int seqid, rows, bint sort_columns) -> bytes:
    """The reply to call ``name`` (``seqid``) whose value is a
    ``list<TRowResult>`` of ``rows``, each ``(row, cells)`` with cells
    ``(family, qualifier, timestamp, value)``: the bytes TBinaryProtocol
    writes for the TRowResults ``server._row_result`` makes of them (their
    columns in a map, or in a list when ``sort_columns``)."""
    cdef _Buffer out = _Buffer()
    cdef tuple entry, cell
    cdef list cells
    put_i32(out, <int>REPLY_HEAD)
    put_string(out, name)
    put_i32(out, seqid)
    put_list(out, 0, len(rows))
    for entry in rows:
        cells = entry[1] if type(entry[1]) is list else list(entry[1])
        put_field(out, T_STRING, 1)
        put_string(out, <bytes?>entry[0])
        if sort_columns:
            put_list(out, 3, len(cells))
            for cell in cells:
                put_field(out, T_STRING, 1)
                put_column(out, <bytes?>cell[0], <bytes?>cell[1])
                put_field(out, T_STRUCT, 2)
                put_cell(out, cell)
                put_stop(out)
        else:
            put_field(out, T_MAP, 2)
            out.reserve(2)
            out.d[out.n] = T_STRING
            out.d[out.n + 1] = T_STRUCT
            out.n += 2
            put_i32(out, <int>len(cells))
            for cell in cells:
                put_column(out, <bytes?>cell[0], <bytes?>cell[1])
                put_cell(out, cell)
        put_stop(out)
    put_stop(out)
    return PyBytes_FromStringAndSize(out.d, out.n)


# -- reads: getRow and its kin, read from the request's bytes ---------------

cdef object call_name(const unsigned char[::1] buf, Cur* c, int* seqid):
    """The name of the call at the start of ``buf``, ``c`` left after its
    header; INCOMPLETE or GENERAL where there is none to read."""
    c.n = buf.shape[0]
    if c.n < 8:
        return INCOMPLETE
    c.p = &buf[0]
    c.pos = 0
    cdef Py_ssize_t off, ln
    cdef int r = call_head(c, &off, &ln, seqid)
    if r == SHORT:
        return INCOMPLETE
    if r != OK:
        return GENERAL
    return PyBytes_FromStringAndSize(<const char*>c.p + off, ln)


cdef dict _GETS = {
    b"getRow": (False, False),
    b"getRowWithColumns": (False, True),
    b"getRows": (True, False),
    b"getRowsWithColumns": (True, True),
}


def parse_get(const unsigned char[::1] buf):
    """A ``getRow``, ``getRowWithColumns``, ``getRows`` or
    ``getRowsWithColumns`` call at the start of ``buf``: INCOMPLETE,
    GENERAL, or ``(end, seqid, name, table, rows, columns)`` (columns None
    when the call names none)."""
    cdef Cur c
    cdef Py_ssize_t off, ln
    cdef int seqid = 0, r
    name = call_name(buf, &c, &seqid)
    if type(name) is not bytes:
        return name
    kind = _GETS.get(name)
    if kind is None:
        return GENERAL
    cdef bint many = kind[0], with_columns = kind[1]
    cdef int ftype = 0, fid = 0
    table = None
    cdef list rows = []
    columns = None
    cdef bint have_rows = False
    cdef int attributes = 4 if with_columns else 3
    while True:
        r = field(&c, &ftype, &fid)
        if r != OK or ftype == T_STOP:
            break
        if fid == 1 and ftype == T_STRING:
            r = string(&c, &off, &ln)
            if r == OK:
                table = PyBytes_FromStringAndSize(<const char*>c.p + off, ln)
        elif fid == 2 and not many and ftype == T_STRING:
            r = string(&c, &off, &ln)
            if r == OK:
                rows = [PyBytes_FromStringAndSize(<const char*>c.p + off, ln)]
                have_rows = True
        elif fid == 2 and many and ftype == T_LIST:
            rows = []
            r = strings(&c, rows)
            have_rows = True
        elif fid == 3 and with_columns and ftype == T_LIST:
            columns = []
            r = strings(&c, columns)
        elif fid == attributes and ftype == T_MAP:
            r = skip_attributes(&c)
        else:
            r = OTHER
        if r != OK:
            break
    if r == SHORT:
        return INCOMPLETE
    if r != OK or table is None or not have_rows:
        return GENERAL
    return (c.pos, seqid, name, table, rows, columns)


# -- scanners: open, fetch and close, read from the request's bytes ---------

SCAN_OPEN = 1
SCAN_FETCH = 2
SCAN_CLOSE = 3

cdef dict _SCANS = {
    b"scannerOpenWithScan": SCAN_OPEN,
    b"scannerGetList": SCAN_FETCH,
    b"scannerGet": SCAN_FETCH,
    b"scannerClose": SCAN_CLOSE,
}


cdef inline int int32(Cur* c, int* out) noexcept nogil:
    if not has(c, 4):
        return SHORT
    out[0] = <int>u32(c.p + c.pos)
    c.pos += 4
    return OK


cdef inline int boolean(Cur* c, int* out) noexcept nogil:
    if not has(c, 1):
        return SHORT
    out[0] = c.p[c.pos] != 0
    c.pos += 1
    return OK


cdef int tscan(Cur* c, list out) except -2:
    """A TScan's fields into ``out`` (startRow, stopRow, timestamp, columns,
    filterString, batchSize, sortColumns, reversed; None where absent):
    OK, SHORT or OTHER. ``caching`` and ``cacheBlocks`` are read and
    dropped, as the handler drops them."""
    cdef int ftype = 0, fid = 0, r, v = 0
    cdef Py_ssize_t off, ln
    cdef int64_t ts
    cdef list columns
    while True:
        r = field(c, &ftype, &fid)
        if r != OK:
            return r
        if ftype == T_STOP:
            return OK
        if ftype == T_STRING and (fid == 1 or fid == 2 or fid == 6):
            r = string(c, &off, &ln)
            if r == OK:
                out[{1: 0, 2: 1, 6: 4}[fid]] = PyBytes_FromStringAndSize(<const char*>c.p + off, ln)
        elif ftype == T_I64 and fid == 3:
            if not has(c, 8):
                return SHORT
            ts = i64(c.p + c.pos)
            c.pos += 8
            out[2] = ts
        elif ftype == T_LIST and fid == 4:
            columns = []
            r = strings(c, columns)
            out[3] = columns
        elif ftype == T_I32 and (fid == 5 or fid == 7):
            r = int32(c, &v)
            if fid == 7:
                out[5] = v
        elif ftype == T_BOOL and 8 <= fid <= 10:
            r = boolean(c, &v)
            if fid != 10:
                out[fid - 2] = bool(v)
        else:
            return OTHER
        if r != OK:
            return r


def parse_scanner_call(const unsigned char[::1] buf):
    """A ``scannerOpenWithScan``, ``scannerGetList``, ``scannerGet`` or
    ``scannerClose`` call at the start of ``buf``: INCOMPLETE, GENERAL, or
    ``(end, seqid, name, kind, args)``: for SCAN_OPEN ``(table, startRow,
    stopRow, timestamp, columns, filterString, batchSize, sortColumns,
    reversed)`` with None for a field not sent; for SCAN_FETCH ``(id,
    rows)`` (``scannerGet``: one row); for SCAN_CLOSE ``(id,)``."""
    cdef Cur c
    cdef Py_ssize_t off, ln
    cdef int seqid = 0, r
    name = call_name(buf, &c, &seqid)
    if type(name) is not bytes:
        return name
    kind = _SCANS.get(name)
    if kind is None:
        return GENERAL
    cdef int ftype = 0, fid = 0, v = 0
    cdef int scanner = 0, rows = 1
    cdef bint have_id = False, have_rows = name == b"scannerGet", have_scan = False
    table = None
    cdef list scan = [None] * 8
    while True:
        r = field(&c, &ftype, &fid)
        if r != OK or ftype == T_STOP:
            break
        if kind == SCAN_OPEN and fid == 1 and ftype == T_STRING:
            r = string(&c, &off, &ln)
            if r == OK:
                table = PyBytes_FromStringAndSize(<const char*>c.p + off, ln)
        elif kind == SCAN_OPEN and fid == 2 and ftype == T_STRUCT:
            r = tscan(&c, scan)
            have_scan = True
        elif kind == SCAN_OPEN and fid == 3 and ftype == T_MAP:
            r = skip_attributes(&c)
        elif kind != SCAN_OPEN and fid == 1 and ftype == T_I32:
            r = int32(&c, &scanner)
            have_id = True
        elif kind == SCAN_FETCH and fid == 2 and ftype == T_I32 and not have_rows:
            r = int32(&c, &rows)
            have_rows = True
        else:
            r = OTHER
        if r != OK:
            break
    if r == SHORT:
        return INCOMPLETE
    if r != OK:
        return GENERAL
    if kind == SCAN_OPEN:
        if table is None or not have_scan:
            return GENERAL
        return (c.pos, seqid, name, kind, (table, *scan))
    if not have_id or (kind == SCAN_FETCH and not have_rows):
        return GENERAL
    if kind == SCAN_FETCH:
        return (c.pos, seqid, name, kind, (scanner, rows))
    return (c.pos, seqid, name, kind, (scanner,))
