# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The store's row reads in compiled code: which cells of a row a read
returns, from the row's RocksDB keys.

``Store._collect_row`` walks a row's keys in Python, splitting each into
family, qualifier, timestamp and type and weighing it against the row's
delete markers, the family's versions and TTL and the read's time range,
a Python object or more per key. In a scan, that walk is most of the work
of the local server's one thread.

:class:`RowReader` is the same walk, line for line, with the keys parsed
in place: a family's or qualifier's bytes are made once per family or
column, not once per key, and what a family allows is worked out once per
read. ``Store`` uses it where this module is built and its own Python
where it is not; ``tests/localhbase/test_compiled_rows.py`` holds the two
to the same answers over random histories and reads.

No library reads HBase's cell semantics out of another store's keys;
hence this module.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memchr, memcmp

# localhbase.encoding's cell types.
cdef enum:
    TYPE_PUT = 4
    TYPE_DELETE = 8
    TYPE_DELETE_FAMILY_VERSION = 10
    TYPE_DELETE_COLUMN = 12
    TYPE_DELETE_FAMILY = 14

cdef int64_t MAX_TS = 0x7FFFFFFFFFFFFFFF
cdef bytes EMPTY = b""
# As encoding.STAMP_LEN and encoding.PAST_STAMPS: a cell key's timestamp and
# type, and what sorts past every version of a column after its key prefix.
cdef Py_ssize_t STAMP_LEN = 9
cdef bytes PAST_STAMPS = b"\xff" * 10
# As encoding.family_upper: after a family's escaped name, sorts past its keys.
cdef bytes PAST_FAMILY = b"\x00\x02"


cdef inline Py_ssize_t part_end(const char* k, Py_ssize_t i, Py_ssize_t n, bint* escaped):
    """Offset of the 0x00 0x01 that ends the escaped part starting at ``i``;
    -1 if there is none. Sets ``escaped`` if the part holds an escaped NUL."""
    cdef const char* p
    while i < n:
        p = <const char*>memchr(k + i, 0, n - i)
        if p == NULL or p + 1 >= k + n:
            return -1
        if p[1] == 1:
            return p - k
        escaped[0] = True
        i = (p - k) + 2
    return -1


cdef struct Column:
    Py_ssize_t fam_end  # where the family's terminator starts
    Py_ssize_t qual_end  # where the qualifier's terminator starts
    bint fam_esc  # whether the family holds an escaped NUL
    bint qual_esc
    int64_t ts
    int kind


cdef int split_column(bytes key, const char* k, Py_ssize_t start, Py_ssize_t n, Column* c) except -1:
    """``localhbase.encoding.split_column`` in place: where the family and
    qualifier of the cell key ``k`` (its column part at ``start``) end, and
    its timestamp and type."""
    cdef const unsigned char* t
    cdef uint64_t inv_ts = 0
    cdef int i
    c.fam_esc = False
    c.qual_esc = False
    c.fam_end = part_end(k, start, n, &c.fam_esc)
    c.qual_end = part_end(k, c.fam_end + 2, n, &c.qual_esc) if c.fam_end >= 0 else -1
    if c.qual_end < 0 or c.qual_end + 11 > n:
        raise ValueError(f"not a cell key: {key!r}")
    t = <const unsigned char*>(k + c.qual_end + 2)
    for i in range(8):
        inv_ts = (inv_ts << 8) | t[i]
    c.ts = MAX_TS - <int64_t>inv_ts
    c.kind = 255 - t[8]
    return 0


cdef inline bytes part(bytes key, const char* k, Py_ssize_t a, Py_ssize_t b, bint escaped):
    """The unescaped bytes of ``key[a:b]``."""
    cdef bytes raw = PyBytes_FromStringAndSize(k + a, b - a)
    if escaped:
        return raw.replace(b"\x00\xff", b"\x00")
    return raw


cdef inline bint same(bytes seen, const char* k, Py_ssize_t a, Py_ssize_t b):
    """Whether ``k[a:b]`` are the bytes of ``seen``."""
    return (
        seen is not None
        and PyBytes_GET_SIZE(seen) == b - a
        and memcmp(PyBytes_AS_STRING(seen), k + a, b - a) == 0
    )


cdef inline bint starts_with(bytes key, bytes pre):
    cdef Py_ssize_t n = PyBytes_GET_SIZE(pre)
    return PyBytes_GET_SIZE(key) >= n and memcmp(PyBytes_AS_STRING(key), PyBytes_AS_STRING(pre), n) == 0


cdef class _Family:
    """What one read takes from one family: worked out once per read."""

    cdef bytes name
    cdef bint skip
    cdef object wanted  # frozenset of qualifiers, or None for all
    cdef list in_order  # wanted as sorted (qualifier, escaped qualifier) pairs
    cdef int64_t limit
    cdef int64_t min_ts
    cdef int64_t max_ts
    cdef bint bounded  # whether max_ts applies
    cdef int64_t cutoff


cdef bytes past_column(const char* k, Py_ssize_t n, Py_ssize_t fam_end, _Family fam, bytes qualifier):
    """``Store._past_column``: where a get seeks once done with the column
    of the put key ``k``: the next column asked for in its family, or past
    the family when none is left (None); with the whole family asked for,
    the next column."""
    if fam.wanted is None:
        return PyBytes_FromStringAndSize(k, n - STAMP_LEN) + PAST_STAMPS
    for q, escaped in fam.in_order:
        if q > qualifier:
            return PyBytes_FromStringAndSize(k, fam_end + 2) + escaped
    return None


cdef class RowReader:
    """Reads rows with the RocksDB iterator ``it`` as ``spec`` asks.

    ``families`` is the table's (name: FamilyDescriptor) and ``now`` the
    read's clock in milliseconds, against which TTLs expire.
    """

    cdef dict families
    cdef object spec
    cdef int64_t now
    cdef object it
    cdef object valid
    cdef object key
    cdef object value
    cdef object step
    cdef object seek
    cdef dict known  # escaped family name -> _Family
    cdef bint first_only
    cdef bint keys_only
    cdef bint seek_columns  # as Store._collect_row's
    cdef bytes last_family  # with seek_columns, the last family asked for

    def __init__(self, dict families, spec, int64_t now, it, bint seek_columns=False):
        self.families = families
        self.spec = spec
        self.now = now
        self.it = it
        self.valid = it.valid
        self.key = it.key
        self.value = it.value
        self.step = it.next
        self.seek = it.seek
        self.seek_columns = seek_columns
        columns = spec.columns
        self.last_family = max(columns) if seek_columns and columns else None
        self.known = {}
        self.first_only = spec.first_cell_only
        self.keys_only = spec.keys_only

    cdef _Family family(self, bytes key, const char* k, Py_ssize_t a, Py_ssize_t b, bint escaped):
        cdef bytes esc_name = PyBytes_FromStringAndSize(k + a, b - a)
        cdef _Family fam = self.known.get(esc_name)
        if fam is not None:
            return fam
        fam = _Family()
        fam.name = part(key, k, a, b, escaped)
        spec = self.spec
        columns = spec.columns
        fd = self.families.get(fam.name)
        fam.skip = fd is None or (columns is not None and fam.name not in columns)
        if not fam.skip:
            fam.wanted = columns.get(fam.name) if columns is not None else None
            if fam.wanted is not None:
                fam.in_order = sorted(
                    (q, q.replace(b"\x00", b"\x00\xff") + b"\x00\x01") for q in fam.wanted
                )
            fam.limit = min(spec.versions, fd.max_versions)
            min_ts, max_ts = spec.min_ts, spec.max_ts
            if spec.family_ranges is not None:
                min_ts, max_ts = spec.family_ranges.get(fam.name, (spec.min_ts, spec.max_ts))
            fam.min_ts = min_ts
            fam.bounded = max_ts is not None
            fam.max_ts = max_ts if max_ts is not None else 0
            ttl = fd.ttl_ms
            fam.cutoff = self.now - ttl if ttl is not None else -1
        self.known[esc_name] = fam
        return fam

    cpdef list collect(self, bytes pre):
        """Visible cells of the row whose keys start with ``pre``, as
        ``Store._collect_row`` returns them; leaves the iterator on the first
        key past the row (maybe short of it, as there, with seek_columns)."""
        cdef list out = []
        cdef Py_ssize_t start = PyBytes_GET_SIZE(pre)
        cdef bytes key
        cdef const char* k
        cdef Py_ssize_t n, fam_end, qual_end
        cdef Column col
        cdef int64_t ts
        cdef int kind
        cdef bytes cur_fam_raw = None  # escaped family part of the last key
        cdef bytes cur_qual_raw = None
        cdef _Family fam = None
        cdef bytes qualifier = None
        cdef int64_t family_deleted = -1
        cdef int64_t column_deleted = -1
        cdef int64_t version_deleted = -1
        cdef set family_versions = None
        cdef int64_t count = 0
        valid = self.valid
        get_key = self.key
        step = self.step
        while valid():
            key = get_key()
            if not starts_with(key, pre):
                break
            k = PyBytes_AS_STRING(key)
            n = PyBytes_GET_SIZE(key)
            split_column(key, k, start, n, &col)
            fam_end = col.fam_end
            qual_end = col.qual_end
            ts = col.ts
            kind = col.kind
            if not same(cur_fam_raw, k, start, fam_end):
                cur_fam_raw = PyBytes_FromStringAndSize(k + start, fam_end - start)
                fam = self.family(key, k, start, fam_end, col.fam_esc)
                family_deleted = -1
                family_versions = None
                cur_qual_raw = None
            if fam.skip:
                if not self.seek_columns:
                    step()
                elif self.last_family is not None and fam.name > self.last_family:
                    return out  # past every family asked for
                else:
                    self.seek(PyBytes_FromStringAndSize(k, fam_end) + PAST_FAMILY)
                continue
            if kind == TYPE_DELETE_FAMILY:
                if ts > family_deleted:
                    family_deleted = ts
                step()
                continue
            if kind == TYPE_DELETE_FAMILY_VERSION:
                # Sorts (qualifier b"") before every cell of the family it masks.
                if family_versions is None:
                    family_versions = set()
                family_versions.add(ts)
                step()
                continue
            if not same(cur_qual_raw, k, fam_end + 2, qual_end):
                cur_qual_raw = PyBytes_FromStringAndSize(k + fam_end + 2, qual_end - fam_end - 2)
                qualifier = part(key, k, fam_end + 2, qual_end, col.qual_esc)
                column_deleted = -1
                version_deleted = -1
                count = 0
            if kind == TYPE_DELETE_COLUMN:
                if ts > column_deleted:
                    column_deleted = ts
            elif kind == TYPE_DELETE:
                # Sorts right before the put of the same timestamp, its only victim.
                version_deleted = ts
            elif (
                ts > family_deleted
                and ts > column_deleted
                and ts > fam.cutoff
                and (not fam.bounded or ts < fam.max_ts)
                and ts >= fam.min_ts
                and ts != version_deleted
                and (family_versions is None or ts not in family_versions)
                and (fam.wanted is None or qualifier in fam.wanted)
                and count < fam.limit
            ):
                count += 1
                out.append((fam.name, qualifier, ts, EMPTY if self.keys_only else self.value()))
                if self.first_only:
                    # Past the rest of the row without parsing it.
                    step()
                    while valid() and starts_with(get_key(), pre):
                        step()
                    return out
            if (
                self.seek_columns
                and kind == TYPE_PUT
                and PyBytes_GET_SIZE(qualifier) > 0
                and (count >= fam.limit or (fam.wanted is not None and qualifier not in fam.wanted))
            ):
                target = past_column(k, n, fam_end, fam, qualifier)
                if target is None:  # past the family's last column asked for
                    if fam.name == self.last_family:
                        return out
                    target = PyBytes_FromStringAndSize(k, fam_end) + PAST_FAMILY
                self.seek(target)
                continue
            step()
        return out


def scan_forward(
    db,
    dict families,
    bytes table_pre,
    bytes seek,
    bytes stop,
    spec,
    frozenset first_puts,
    clock,
):
    """The rows of ``Store._scan`` going forward, from the key ``seek`` to the
    row ``stop`` (none if empty) of the table whose keys start with
    ``table_pre``: (row, cells) for each row with a visible cell.

    Lazy as the store's own: the iterator (and its RocksDB snapshot) and
    the clock are taken at the first row asked for.
    """
    it = db.iter()
    cdef RowReader reader = RowReader(families, spec, clock(), it)
    cdef bytes key, row, pre, family
    cdef const char* k
    cdef Py_ssize_t n, end
    cdef bint row_esc
    cdef Column col
    cdef bint keys_only = spec.keys_only
    cdef Py_ssize_t table_len = PyBytes_GET_SIZE(table_pre)
    valid = it.valid
    get_key = it.key
    step = it.next
    it.seek(seek)
    while valid():
        key = get_key()
        if not starts_with(key, table_pre):
            return
        k = PyBytes_AS_STRING(key)
        n = PyBytes_GET_SIZE(key)
        row_esc = False
        end = part_end(k, table_len, n, &row_esc)
        if end < 0:
            raise ValueError(f"not a cell key: {key!r}")
        row = part(key, k, table_len, end, row_esc)
        end += 2
        if stop and row >= stop:
            return
        if first_puts:
            split_column(key, k, end, n, &col)
            family = part(key, k, end, col.fam_end, col.fam_esc)
            if col.kind == TYPE_PUT and family in first_puts:
                # The row's first key is a put: no marker sorts before it,
                # so it is the row's first visible cell.
                cell = (
                    family,
                    part(key, k, col.fam_end + 2, col.qual_end, col.qual_esc),
                    col.ts,
                    EMPTY if keys_only else it.value(),
                )
                pre = key[:end]
                step()
                while valid() and starts_with(get_key(), pre):
                    step()
                yield row, [cell]
                continue
        cells = reader.collect(key[:end])
        if cells:
            yield row, cells
