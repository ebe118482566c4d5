#!/usr/bin/env python3
"""Reads a ReactorLog log using only LMDB and JSON, following docs/FORMAT.md, and none of ReactorLog's code.

It proves the format document is sufficient, and shows how to read a log from another language.
Needs the `lmdb` package (pip install lmdb). Usage: read-log.py LOG [--stream NAME] [--copy]
Prints one line per entry (an action with `@ FILE:LINE`, where it was sent from), checks every checksum and the
rules every entry obeys (docs/FORMAT.md), and exits 1 on the first damaged record or broken rule. --copy reads
a copy no process writes without a lock file (MDB_NOLOCK), as FORMAT.md describes. A log that LMDB refuses for its
data file's current meta page (or a page only its commit reaches) is read from the other meta page, through a private
copy, when no process writes it (FORMAT.md, "A damaged meta page"): it lists what that commit holds, then exits 1
saying so.
"""
import datetime
import fcntl
import json
import math
import mmap
import os
import shutil
import signal
import stat
import struct
import sys
import tempfile

import lmdb

KINDS = {1: "action", 2: "mutation", 3: "error", 4: "opened", 5: "resumed", 6: "closed"}


def crc32c_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


TABLE = crc32c_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc = TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def checked(record, what, sealed_with=b""):
    """`record`, whose checksum covers the rest of it, after `sealed_with` (an index block's key since version 8)."""
    if len(record) < 4:
        sys.exit(f"{what}: its record is {len(record)} bytes, too short for its checksum")
    if struct.unpack_from("<I", record, 0)[0] != crc32c(bytes(sealed_with) + bytes(record[4:])):
        sys.exit(f"{what}: checksum mismatch")
    return record


def key_fields(layout, key, what):
    """The fields of a key of `layout` (a struct format), or one line saying the key is damaged."""
    if len(key) != struct.calcsize(layout):
        sys.exit(f"{what}: its key {bytes(key).hex()} is {len(key)} bytes, not {struct.calcsize(layout)}")
    return struct.unpack(layout, key)


def meta_number(values, name):
    """A number the metadata holds as decimal text, or None when it holds none; anything else is damage."""
    text = values.get(name)
    if text is not None and not (0 < len(text) <= 20 and bytes(text).isdigit()):
        sys.exit(f"the metadata breaks a rule: its {name.decode()} is {bytes(text)[:24]!r}, not a number")
    return None if text is None else int(text)


META_KEYS = [b"format-version", b"created-at", b"created-by", b"written-by", b"codec", b"durability",
             b"snapshot-policy", b"sequence-floor", b"metadata-checksum", b"unvouched-metadata"]
FEW_VALUES = {b"format-version": [b"%d" % v for v in range(1, 9)], b"codec": [b"json", b"binary"],
              b"durability": [b"sync", b"grouped", b"nosync"]}


def seal_holds(records):
    """Whether the metadata's seal, among `records` (key, value) in key order, matches every other record."""
    sealed, seal = b"", None
    for key, value in records:
        if key == b"metadata-checksum":
            seal = value
        else:
            sealed += struct.pack("<I", len(key)) + key + struct.pack("<I", len(value)) + value
    return seal is not None and seal == b"%08x" % crc32c(sealed)


def mended_meta(records):
    """The metadata's records with the one a bad bit damaged put back, and that record, where the seal vouches for
    exactly one mending: a value of few in place of the one read, or a key that is not ReactorLog's under a key the
    metadata lacks, with its value or one of few (a bad bit in the key's size moves the value). None otherwise."""
    keys = [key for key, _ in records]
    trials = []
    for index, (key, value) in enumerate(records):
        rest = records[:index] + records[index + 1:]
        trials += [rest + [(key, other)] for other in FEW_VALUES.get(key, []) if other != value]
        if key not in META_KEYS:
            for missing in (name for name in META_KEYS if name not in keys):
                trials += [rest + [(missing, other)] for other in [value] + [v for v in FEW_VALUES.get(missing, []) if v != value]]
    vouched = [sorted(trial) for trial in trials if seal_holds(sorted(trial))]
    if len(vouched) != 1:
        return None
    changed = next(record for record in vouched[0] if record not in records)
    return vouched[0], changed


def text_field(data, what):
    """A UTF-8 text the log stores (a name, a call site), or one line saying it is not UTF-8."""
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        sys.exit(f"{what} breaks a rule: it is not UTF-8")


def visible(text):
    """`text` safe to print: control characters (newlines and tabs too), DEL, C1 controls and bidirectional
    overrides as `\\u{XX}`, as the inspector shows them, so that what a log holds can neither drive the terminal nor
    add a line."""
    return "".join(
        f"\\u{{{ord(c):X}}}" if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or 0x202A <= ord(c) <= 0x202E or 0x2066 <= ord(c) <= 0x2069
        else c for c in text)


def refuse_constant(name):
    raise ValueError(f"{name} is not JSON")


def finite(text, kind):
    """A JSON number within a double's finite range, as the log's own readers require (docs/FORMAT.md)."""
    if not math.isfinite(float(text)):
        raise ValueError(f"{text if len(text) <= 24 else text[:20] + '...'} is out of a double's range")
    return kind(text)


def strict_json(text):
    """The JSON value of `text`, refusing NaN and the infinities as constants and as numbers out of a double's range."""
    return json.loads(text, parse_constant=refuse_constant,
                      parse_float=lambda number: finite(number, float), parse_int=lambda number: finite(number, int))


def json_number(text):
    """`text` as one JSON number within a double's finite range (a binary payload's decimal number), or ValueError."""
    value = strict_json(text)
    if type(value) not in (int, float) or text != text.strip():
        raise ValueError(f"a decimal number is not one JSON number: {text[:24]!r}")
    return value


def json_payload(payload):
    """The value of a JSON-codec payload, read as strictly as the log's own readers: UTF-8 without a byte-order mark,
    finite numbers, no unpaired surrogate in a string, containers nested at most 512 deep."""
    if payload.startswith(b"\xef\xbb\xbf"):
        raise ValueError("a byte-order mark is not JSON")
    value = strict_json(payload.decode("utf-8"))
    json.dumps(value, ensure_ascii=False).encode("utf-8")  # raises on an unpaired surrogate
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, level = pending.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, level)
            pending.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    if deepest > 512:
        raise ValueError(f"containers nest {deepest} deep, more than 512")
    return value


def payload_text(codec, payload, what):
    if codec == 0:
        if payload:
            sys.exit(f"{what} breaks a rule: codec none with a {len(payload)}-byte payload")
        return ""
    if codec == 1:
        try:
            value = json_payload(payload)
        except (ValueError, RecursionError) as error:
            sys.exit(f"{what} breaks a rule: its JSON payload is not valid JSON ({error})")
        return json.dumps(value, separators=(",", ":"))
    if codec == 2:
        try:
            text, end = binary_json(payload, 0, 0)
            if end != len(payload):
                raise ValueError(f"bytes follow the value at byte {end}")
        except (ValueError, IndexError, struct.error, UnicodeDecodeError) as error:
            sys.exit(f"{what} breaks a rule: its binary payload is not well formed ({error})")
        return text
    return f"<{len(payload)} bytes of codec {codec}>"


def varint(data, offset):
    """A LEB128 varint: 7 bits per byte, least significant first, high bit set on all but the last byte."""
    value, shift = 0, 0
    while True:
        byte = data[offset]
        offset += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            if value >= 1 << 64:
                raise ValueError("a varint is longer than 64 bits")
            return value, offset
        shift += 7


def utf8(data, offset, length):
    if offset + length > len(data):
        raise ValueError("a length runs past the payload's end")
    return data[offset:offset + length].decode("utf-8"), offset + length


def binary_json(data, offset, depth):
    """The JSON text of the binary value at `offset` (docs/FORMAT.md, "The binary codec") and where it ends."""
    if depth >= 512:
        raise ValueError("containers nest deeper than 512")
    tag = data[offset]
    offset += 1
    if tag <= 0x02:
        return ("null", "false", "true")[tag], offset
    if tag == 0x03:
        zigzag, offset = varint(data, offset)
        return str((zigzag >> 1) ^ -(zigzag & 1)), offset
    if tag == 0x04:
        value, offset = varint(data, offset)
        return str(value), offset
    if tag == 0x05:
        (value,) = struct.unpack_from("<d", data, offset)
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError("a double is not finite")
        text = str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
        return text, offset + 8
    if tag in (0x06, 0x09):
        length, offset = varint(data, offset)
        text, offset = utf8(data, offset, length)
        if tag == 0x09:
            json_number(text)
            return text, offset
        return json.dumps(text, ensure_ascii=False), offset
    if tag == 0x07:
        items = []
        while data[offset] != 0x0F:
            item, offset = binary_json(data, offset, depth + 1)
            items.append(item)
        return "[" + ",".join(items) + "]", offset + 1
    if tag == 0x08:
        members = []
        while True:
            length, offset = varint(data, offset)
            if length == 0:
                return "{" + ",".join(members) + "}", offset
            key, offset = utf8(data, offset, length - 1)
            value, offset = binary_json(data, offset, depth + 1)
            members.append(json.dumps(key, ensure_ascii=False) + ":" + value)
    raise ValueError(f"tag 0x{tag:02x} is not a value")


MARKERS = {4: "opened", 5: "resumed", 6: "closed"}


def covered(gaps, first, last):
    """Whether the gaps, together, hold every number from first through last."""
    position = first
    for start, end, _ in sorted(gaps):
        if start <= position <= end:
            if end >= last:
                return True
            position = end + 1
    return False


def read_varint(data, offset, what):
    try:
        return varint(data, offset)
    except IndexError:
        sys.exit(f"{what}: its header ends inside a number")


def entry_fields(key, record):
    """An entry record's (kind, codec, stream id, sequence, timestamp, cause, case bytes, payload), in either layout
    (docs/FORMAT.md, "Entries"): compact when the kind byte's high bit is set, else version 1."""
    (stored_under,) = key_fields(">Q", key, "an entry")
    what = f"entry {stored_under}"
    if len(record) > 4 and record[4] & 0x80:
        if len(record) < 18:
            sys.exit(f"{what}: its record is shorter than a compact header")
        kind, codec, timestamp = record[4] & 0x7F, record[5], struct.unpack_from("<q", record, 6)[0]
        sequence, offset = read_varint(record, 14, what)
        stream_id, offset = read_varint(record, offset, what)
        distance, offset = read_varint(record, offset, what)
        case_length, offset = read_varint(record, offset, what)
        if sequence != stored_under or distance > sequence or offset + case_length > len(record):
            sys.exit(f"{what}: its header does not match its key or size")
        cause = sequence - distance if distance else 0
        return kind, codec, stream_id, sequence, timestamp, cause, bytes(record[offset:offset + case_length]), bytes(record[offset + case_length:])
    if len(record) < 40:
        sys.exit(f"{what}: its record is shorter than its header")
    kind, codec, case_length, stream_id, payload_length, sequence, timestamp, cause = struct.unpack_from("<BBHIIQqQ", record, 4)
    if sequence != stored_under or len(record) != 40 + case_length + payload_length:
        sys.exit(f"{what}: its header does not match its key or size")
    return kind, codec, stream_id, sequence, timestamp, cause, bytes(record[40:40 + case_length]), bytes(record[40 + case_length:])


def block_entries(key, block):
    """The entries of an entry block (docs/FORMAT.md, "Entry blocks", format version 7), each as entry_fields gives
    one; the checksum is checked by the caller."""
    (first,) = key_fields(">Q", key, "a block of entries")
    what = f"the block of entries from #{first}"
    if len(block) <= 23:
        sys.exit(f"{what}: it is shorter than its header")
    count, time, recorded = struct.unpack_from("<HqQ", block, 5)
    if recorded != first:
        sys.exit(f"{what}: it records #{recorded} as its first entry")
    if count == 0:
        sys.exit(f"{what}: it holds no entry")
    found, names, offset, sequence = [], [], 23, first
    for index in range(count):
        distance, offset = read_varint(block, offset, what)
        if (index == 0) != (distance == 0):
            sys.exit(f"{what}: an entry after #{sequence} is out of order")
        sequence += distance
        if offset + 2 > len(block):
            sys.exit(f"{what}: entry #{sequence} is cut short")
        kind, codec = block[offset], block[offset + 1]
        stream_id, offset = read_varint(block, offset + 2, what)
        zigzag, offset = read_varint(block, offset, what)
        time = (time + ((zigzag >> 1) ^ -(zigzag & 1)) + 2**63) % 2**64 - 2**63
        distance, offset = read_varint(block, offset, what)
        if distance > sequence:
            sys.exit(f"{what}: the cause of entry #{sequence} is out of range")
        name, offset = read_varint(block, offset, what)
        length, offset = read_varint(block, offset, what)
        if name == 0:
            spelled, offset = read_varint(block, offset, what)
            if offset + spelled > len(block):
                sys.exit(f"{what}: the case name of entry #{sequence} runs past the block")
            names.append(bytes(block[offset:offset + spelled]))
            offset += spelled
        elif name > len(names):
            sys.exit(f"{what}: entry #{sequence} names case name {name} of {len(names)} spelled")
        if offset + length > len(block):
            sys.exit(f"{what}: the payload of entry #{sequence} runs past the block")
        payload = bytes(block[offset:offset + length])
        offset += length
        found.append((kind, codec, stream_id, sequence, time, sequence - distance if distance else 0, names[name - 1] if name else names[-1], payload))
    if offset != len(block):
        sys.exit(f"{what}: it has bytes after its last entry")
    return found


def record_entries(key, record):
    """The entries of a record of `entries`: a block's (version 7, marked 0xB7 at offset 4), or the one of a record."""
    checked(record, f"entry {key_fields('>Q', key, 'an entry')[0]}")
    if len(record) > 4 and record[4] == 0xB7:
        return block_entries(key, record)
    return [entry_fields(key, record)]


def entry_at(txn, entries, sequence):
    """The fields of entry `sequence`, or None: in the record stored under it, or in the block at or before it."""
    key = struct.pack(">Q", sequence)
    cursor = txn.cursor(db=entries)
    if not (cursor.set_range(key) and cursor.key() == key):
        if not (cursor.prev() if cursor.key() else cursor.last()):
            return None
    for fields in record_entries(cursor.key(), cursor.value()):
        if fields[3] == sequence:
            return fields
    return None


def check_rules(txn, entries, kind, case, stream_id, sequence, cause):
    """The rules of docs/FORMAT.md that a single entry must obey."""
    what = f"entry #{sequence}"
    if kind == 1 and cause != 0:
        sys.exit(f"{what} breaks a rule: an action with a cause (#{cause})")
    if kind in (2, 3) and cause != 0:
        if cause >= sequence:
            sys.exit(f"{what} breaks a rule: its cause #{cause} is not an earlier entry")
        causing = entry_at(txn, entries, cause)
        if causing is not None:
            causing_kind, _, causing_stream = causing[:3]
            if causing_kind != 1 or causing_stream != stream_id:
                sys.exit(f"{what} breaks a rule: its cause #{cause} is not an action of the same stream")
    if kind in MARKERS and (case != MARKERS[kind] or cause != 0):
        sys.exit(f"{what} breaks a rule: a {MARKERS[kind]} marker named '{case}' or with a cause")


def index_items(txn, db, blocks, keys_sealed):
    """Every (stream id, sequence, kind, call-site number or 0) of the stream index, in key order (docs/FORMAT.md,
    "The stream index"): from blocks since version 5, from a record per entry before; since version 8
    (`keys_sealed`), each block's checksum covers its key, then its items."""
    for key, value in txn.cursor(db=db):
        stream_id, first = key_fields(">IQ", key, "the stream index")
        if not blocks:
            yield stream_id, first, value[0], struct.unpack_from("<I", value, 1)[0] if len(value) >= 5 else 0
            continue
        checked(value, f"index block {key.hex()}", sealed_with=key if keys_sealed else b"")
        offset, sequence = 4, first
        if len(value) <= 4:
            sys.exit(f"index block {key.hex()} breaks a rule: it holds no entry")
        while offset < len(value):
            distance, offset = read_varint(value, offset, f"index block {key.hex()}")
            if (offset == 5) != (distance == 0) or offset >= len(value):
                sys.exit(f"index block {key.hex()} breaks a rule: an entry after #{sequence} is out of order or cut short")
            sequence += distance
            kind, offset, site = value[offset], offset + 1, 0
            if kind == 1:
                site, offset = read_varint(value, offset, f"index block {key.hex()}")
            yield stream_id, sequence, kind, site


class MetaPage:
    """One of the data file's two meta pages, the fields of LMDB's layout this reader uses (docs/FORMAT.md, "Before
    mapping a file")."""

    def __init__(self, page):
        self.magic, self.version = struct.unpack_from("<II", page, 16)
        (self.page_size,) = struct.unpack_from("<I", page, 40)
        self.last_page, self.transaction = struct.unpack_from("<QQ", page, 136)
        (self.free_root,) = struct.unpack_from("<Q", page, 80)
        (self.main_root,) = struct.unpack_from("<Q", page, 128)
        (self.free_depth,) = struct.unpack_from("<H", page, 46)
        (self.main_depth,) = struct.unpack_from("<H", page, 94)

    @property
    def valid(self):
        """Whether LMDB takes it for a meta page: its magic number and version 1."""
        return self.magic == 0xBEEFC0DE and self.version == 1


# The page sizes LMDB could have written, in order: the powers of two from 512 to 65,536.
POSSIBLE_PAGE_SIZES = [1 << shift for shift in range(9, 17)]


def plausible_page_size(size):
    return size in POSSIBLE_PAGE_SIZES


def meta_pages(data_path):
    """The data file's meta pages: the first, and the second where the first gives a page size LMDB could have written
    and the file holds that page; where the first gives none (a zeroed first sector), the page at a possible size that
    carries LMDB's magic and records that size (FORMAT.md, "Before mapping a file"); empty where the file is too short
    for the first."""
    with open(data_path, "rb") as file:
        head = file.read(65536 + 152)
    pages = [MetaPage(head[at:at + 152]) for at in (0,) if len(head) >= 152]
    if pages and plausible_page_size(pages[0].page_size):
        if len(head) >= pages[0].page_size + 152:
            pages.append(MetaPage(head[pages[0].page_size:pages[0].page_size + 152]))
    elif pages:
        for size in POSSIBLE_PAGE_SIZES:
            if len(head) < size + 152:
                break
            second = MetaPage(head[size:size + 152])
            if second.magic == 0xBEEFC0DE and second.page_size == size:
                pages.append(second)
                break
    return pages


def check_meta_pages(data_path, walk_trees, attempts=3, after_reading=None, passing_over=frozenset()):
    """Refuses a data file LMDB would read past the end of (docs/FORMAT.md, "Before mapping a file"); with
    `walk_trees`, one whose trees lead LMDB outside the file as well. A walk that finds damage after a writer committed
    (the meta pages' ids changed under it) walks the new commit, up to `attempts` walks in all. `after_reading`, where
    given, runs once the meta pages are read: a test's commits there stand for a writer's during a walk. `passing_over`:
    as for check_page_trees."""
    pages = meta_pages(data_path)
    if after_reading:
        after_reading()
    if not pages:
        return "is not an LMDB file (too short for a meta page)"
    if not any(page.magic == 0xBEEFC0DE for page in pages):
        return "is not an LMDB file (no LMDB meta page)"
    valid = [index for index, page in enumerate(pages) if page.valid]
    if not valid:
        return "has damaged meta pages (no valid version)"
    # Both pages LMDB may read are checked where a bad bit broke the ids' parity (FORMAT.md); it trusts their page size.
    readable = readable_meta_pages(data_path, pages)
    size = os.path.getsize(data_path)
    for current in readable:
        if not plausible_page_size(current.page_size):
            return f"has a damaged meta page: its page size is {current.page_size}"
        # The root a reader starts from (LMDB asserts, and aborts, on one of 0 or 1); the free list's is a writer's alone.
        root = current.main_root
        if root != EMPTY_TREE and not 2 <= root <= current.last_page:
            return f"has a damaged meta page: the main database's root is page {root}, outside pages 2…{current.last_page}"
        needed = (current.last_page + 1) * current.page_size
        if size < needed or size < 2 * current.page_size:
            return f"is truncated: its meta page says it uses {current.last_page + 1} pages ({needed} bytes), but the file holds {size} bytes"
    if walk_trees:
        for current in readable:
            problem = check_page_trees(data_path, current.page_size, current.last_page,
                                       ((current.free_root, current.free_depth), (current.main_root, current.main_depth)),
                                       passing_over=passing_over)
            if problem:
                committed = [page.transaction for page in meta_pages(data_path)] != [page.transaction for page in pages]
                return (check_meta_pages(data_path, walk_trees, attempts - 1, passing_over=passing_over)
                        if committed and attempts > 1 else problem)
    return None


def readable_meta_pages(data_path, pages=None):
    """The meta pages LMDB may read the data file from: that of the highest transaction id (the first on a tie), and,
    where a bad bit broke the ids' parity, the one at the index of that id's parity, which LMDB reads with its lock
    file. Empty where no page is valid."""
    pages = pages if pages is not None else meta_pages(data_path)
    valid = [index for index, page in enumerate(pages) if page.valid]
    if not valid:
        return []
    highest = max(valid, key=lambda index: pages[index].transaction)
    by_parity = pages[highest].transaction & 1
    return [pages[highest]] + ([pages[by_parity]] if by_parity != highest and by_parity in valid else [])


def transaction_ids(data_path):
    """The transaction ids of the data file's two meta pages, or None where either is not valid."""
    pages = meta_pages(data_path)
    if len(pages) < 2 or not all(page.valid for page in pages):
        return None
    return pages[0].transaction, pages[1].transaction


def commit_order_problem(data_path):
    """Why meta pages whose transaction ids keep the pattern commits leave disagree with their free lists, or None
    (docs/FORMAT.md, "A damaged meta page"): no free list files pages under an id above its page's, and the trees of the
    page LMDB reads never start at a page the other page's commit freed. Where one does, a bad bit made the commit
    before the last current."""
    pages = meta_pages(data_path)
    if len(pages) < 2 or not all(page.valid for page in pages) or not plausible_page_size(pages[0].page_size) \
            or pages[1].page_size != pages[0].page_size:
        return None
    records = []
    for page in pages:
        found = {}
        if check_page_trees(data_path, page.page_size, page.last_page, ((page.free_root, page.free_depth), (EMPTY_TREE, 0)), found):
            return None
        records.append(found)
    ids = f"{pages[0].transaction} and {pages[1].transaction}"
    for index, page in enumerate(pages):
        highest = max(records[index], default=0)
        if highest > page.transaction:
            return (f"has meta pages whose transaction ids, {ids}, disagree with their free lists: page {index}'s files pages under "
                    f"transaction {highest}, above its own id, so that id or the record's key is damaged, and what was read may be the log as it stood before its last commit")
    current = max(page.transaction for page in pages) & 1
    other = 1 - current
    freed = records[other].get(pages[other].transaction, [])
    for root in (pages[current].main_root, pages[current].free_root):
        if root in freed:
            return (f"has meta pages whose transaction ids, {ids}, disagree with their free lists: page {current}'s trees start at page "
                    f"{root}, which the commit of page {other} freed, so one id is damaged, and what was read may be the log as it stood "
                    "before its last commit")
    return None


def writer_holds(path):
    """Whether a process holds the log's writer.lock: its pages then change under a reader walking them."""
    try:
        descriptor = os.open(os.path.join(path, "writer.lock"), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(descriptor)


# The root of an empty tree.
EMPTY_TREE = 0xFFFFFFFFFFFFFFFF
# Every database a log's main database may name (FORMAT.md, "A record's header"): a record whose name is one bit from
# one of these that no record has is that database's, renamed by a bad bit.
DATABASE_NAMES = {b"meta", b"entries", b"streams", b"snapshots", b"stream-index", b"stream-entries", b"gaps", b"pins", b"sites", b"schemas"}

# The page flags LMDB reads a page by: branch, leaf, overflow, keys of a fixed size. The others it acts on only when
# it writes, which this reader never does.
READ_FLAGS = 0x01 | 0x02 | 0x04 | 0x20


def size_filling(room, besides, stated):
    """The size of one part of a node (a value held in its page, or a key) whose other part takes `besides` bytes,
    where the node takes the `room` bytes up to the next node (or the page's end) and the size it states, `stated`, is
    one bad bit from it; None where no such size fills the room (FORMAT.md, "A record's header"). Nodes are 8 bytes of
    header, the key and the value, made even: of the two sizes that fill a room, one at most is one bit from another."""
    fits = [fit for fit in (room - 8 - besides, room - 9 - besides)
            if fit >= 0 and (8 + besides + fit + 1) & ~1 == room and bin(fit ^ stated).count("1") == 1]
    return fits[0] if fits else None


def check_page_trees(data_path, page_size, last_page, roots, records=None, mends=None, passing_over=frozenset()):
    """Walks every tree LMDB can reach from the current meta page and checks each page before LMDB reads it, since
    LMDB follows page numbers and node offsets unchecked (docs/FORMAT.md, "Before mapping a file"). `roots` are the
    free list's and the main database's (root, depth). `records`, a dict where given, gets the free list's records:
    the pages filed under each transaction id. `mends`, a list where given, gets the records outside the free list
    a bad bit damaged where LMDB finds them (FORMAT.md, "A record's header"), which the walk then reads as mended: (the
    file offset of the bytes to mend, the bytes mended, what was wrong). `passing_over` names databases whose trees are
    not walked: a reader that does not read them (the call sites, where their pages alone are damaged). Returns what
    is wrong, or None."""
    # Mapped read-only, not read into memory: a page is sliced out only once the file is known to hold it.
    file = open(data_path, "rb")
    data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    whole_pages = len(data) // page_size
    # The largest node LMDB keeps in a page (`me_nodemax`): a larger value goes to overflow pages, a smaller never does.
    largest_node = ((page_size - 16) // 2 & ~1) - 2
    seen = set()
    # The pages the free list names: no tree of the same commit reaches one (a root left as the commit before's).
    listed_free = set()
    # The main database's 48-byte values without a named database's flag, while mending: each may be a named database's
    # record whose flag a bad bit cleared (mend_database_flags).
    unflagged = []
    # The main database's named databases' records: (the file offset of the key, the key, where the record is).
    database_records = []
    # While mending: the first and last key of the leaf pages read, in order (a subtree's keys); the branch nodes whose
    # child could not be walked (mend_child_pages); the pages and records read of each tree, and those each named
    # database's record counts; and the branch node each page read as a child was read for, with its subtree's keys.
    leaf_keys = [None]
    unwalked = []
    tallies, declared, claims = {}, {}, {}
    # What a walk that mends changed, in order, that a child's walk found wrong takes back (restore).
    journal = []

    def snapshot():
        """Where a walk that mends stands, for restore: its journal's length and what it keeps besides."""
        return len(journal), len(mends), len(unflagged), len(database_records), leaf_keys[0], len(unwalked)

    def restore(state):
        """Takes back what the walk did since `state`: the pages it reached, what it tallied, claimed, noted and mended."""
        at, mended, unflagged_count, named_count, leaf_keys[0], unwalked_count = state
        for change in reversed(journal[at:]):
            if change[0] == "reached":
                seen.discard(change[1])
                tallies[change[2]][0] -= 1
            elif change[0] == "records":
                tallies[change[1]][1] -= change[2]
            elif change[0] == "claim":
                claims.pop(change[1], None)
            elif change[2] is None:
                declared.pop(change[1], None)
            else:
                declared[change[1]] = change[2]
        del journal[at:]
        del mends[mended:]
        del unflagged[unflagged_count:]
        del database_records[named_count:]
        del unwalked[unwalked_count:]

    def holds(child, first, last):
        """Whether keys from `first` to `last` lie where the branch's keys around `child` put it."""
        return (child["low"] is None or first >= child["low"]) and (child["high"] is None or last < child["high"])

    def walk_child(number, child):
        """Walks page `number` as `child`'s (a walk that mends walks each child apart), keeping what it read where its
        pages are sound and its keys lie where the branch's keys put it; else takes the walk back and returns what was
        wrong: the failure, or "keys"."""
        state, outer = snapshot(), leaf_keys[0]
        leaf_keys[0] = None
        try:
            walk(number, child["depth"], child["tree"], child["named"], False, child["level"])
        except ValueError as failure:
            restore(state)
            return failure
        keys = leaf_keys[0]
        if keys is not None and not holds(child, *keys):
            restore(state)
            return "keys"
        leaf_keys[0] = (outer[0] if outer else keys[0], keys[1]) if keys else outer
        journal.append(("claim", number))
        claims[number] = (child, keys)
        return None

    def reach(number, tree):
        if number in seen:
            raise ValueError(f"{tree} reaches page {number} twice")
        if number in listed_free:
            raise ValueError(f"{tree} reaches page {number}, which the free list names as free")
        seen.add(number)
        if mends is not None:
            tallies.setdefault(tree, [0, 0])[0] += 1
            journal.append(("reached", number, tree))

    def list_free(record, where, key):
        if len(record) < 8 or len(record) % 8:
            raise ValueError(f"a free-list record of page {where} has {len(record)} bytes")
        (listed,) = struct.unpack_from("<Q", record, 0)
        if listed != len(record) // 8 - 1:
            raise ValueError(f"a free-list record of page {where} counts {listed} pages in {len(record)} bytes")
        for (free_page,) in struct.iter_unpack("<Q", record[8:]):
            if not 2 <= free_page <= last_page:
                raise ValueError(f"the free list names page {free_page}, outside pages 2…{last_page}")
            # A commit frees a page once, and LMDB would hand out a page named twice twice: two pages of one number.
            if free_page in listed_free:
                raise ValueError(f"the free list names page {free_page} twice")
            # The free list is walked first: a page reached by now is one of its own tree's.
            if free_page in seen:
                raise ValueError(f"the free list names page {free_page}, a page of its own tree")
            listed_free.add(free_page)
            if records is not None and key is not None:
                records.setdefault(key, []).append(free_page)

    def page(number, tree):
        if not 2 <= number <= last_page:
            raise ValueError(f"{tree} refers to page {number}, outside pages 2…{last_page}")
        if number >= whole_pages:
            raise ValueError(f"page {number} cannot be read whole")
        reach(number, tree)
        body = data[number * page_size:(number + 1) * page_size]
        (stored,) = struct.unpack_from("<Q", body, 0)
        # LMDB's readers find a page by its place and never read the number it stores: a bad bit or byte in that number
        # (differing from the page's place in one byte, where a page number gone astray into other bytes reads as
        # another number altogether) is passed over, as the Swift reader does.
        if stored != number and sum(1 for byte in (stored ^ number).to_bytes(8, "little") if byte) != 1:
            raise ValueError(f"page {number} says it is page {stored}")
        return body

    def overflow(first, size, tree, free, key):
        body = page(first, tree)
        flags, (count,) = struct.unpack_from("<H", body, 10)[0], struct.unpack_from("<I", body, 12)
        if flags & READ_FLAGS != 0x04 or count < 1 or first + count - 1 > last_page:
            raise ValueError(f"overflow page {first} of {tree} is damaged")
        if size > count * page_size - 16:
            raise ValueError(f"a value of {size} bytes in {tree} does not fit its {count} overflow pages")
        if first + count > whole_pages:
            raise ValueError(f"overflow page {first} of {tree} runs past the file's end")
        for number in range(first + 1, first + count):
            reach(number, tree)
        if free:  # a free-list record too long for its page
            list_free(data[first * page_size + 16:first * page_size + 16 + size], first, key)

    def walk(root, depth, tree, named, free, level=1):
        if root == EMPTY_TREE:
            return
        if not 1 <= depth <= 32:
            raise ValueError(f"{tree} declares an impossible depth {depth}")
        pending = [(root, level)]
        while pending:
            number, level = pending.pop()
            body = page(number, tree)
            flags, lower, upper = struct.unpack_from("<HHH", body, 10)
            # The type alone among the flags LMDB reads a page by (READ_FLAGS).
            branch, leaf = flags & READ_FLAGS == 0x01, flags & READ_FLAGS == 0x02
            if not (branch or leaf):
                raise ValueError(f"page {number} of {tree} is neither a branch nor a leaf page (flags {flags})")
            if leaf != (level == depth):
                raise ValueError(f"page {number} of {tree} is a {'leaf' if leaf else 'branch'} page at level {level} of {depth}")
            mending = mends is not None and not free and 16 <= lower <= page_size and not (lower - 16) % 2
            offsets = [struct.unpack_from("<H", body, 16 + 2 * index)[0] for index in range((lower - 16) // 2)] if mending else []

            # What mending reads a page by: LMDB lays a page's nodes end to end, from `upper` to the page's end, each 8
            # bytes, the key and the value (a branch's: the key), made even.
            def extent(at):
                low, high, node_flags, key_size = struct.unpack_from("<HHHH", body, at)
                return (8 + key_size + (0 if branch else 8 if node_flags & 0x01 else low | high << 16) + 1) & ~1

            def room(at):
                """Where the node at `at` may end: at the next node's offset above it, or the page's end."""
                return min([other for other in offsets if other > at], default=page_size) - at

            def tiles(candidate, start):
                end = start
                for at in sorted(candidate):
                    if at != end or at + 8 > page_size:
                        return False
                    end = at + extent(at)
                return end == page_size

            if mending and offsets and not tiles(offsets, upper):
                # Where the nodes start, a bad bit from `upper`, which LMDB's compacting copy copies the page by.
                start = min(offsets)
                if bin(start ^ upper).count("1") == 1 and tiles(offsets, start):
                    mends.append((number * page_size + 14, struct.pack("<H", start),
                                  f"starts a page's nodes at byte {upper}, though they start at byte {start} (page {number}, in {tree})"))
                    upper = start
            if not 16 <= lower <= upper <= page_size or (lower - 16) % 2:
                raise ValueError(f"page {number} of {tree} has impossible bounds ({lower}, {upper})")
            count = (lower - 16) // 2
            # LMDB frees a root that loses its last node: an empty page it reaches is damage (its cursor would read the
            # last node at index 65535, past the map).
            if count == 0:
                raise ValueError(f"page {number} of {tree} holds no node")
            if mends is not None and leaf:
                tallies.setdefault(tree, [0, 0])[1] += count
                journal.append(("records", tree, count))
            if mends is not None and not free and leaf and count:
                def key_at(index):
                    (at,) = struct.unpack_from("<H", body, 16 + 2 * index)
                    return bytes(body[at + 8:min(at + 8 + struct.unpack_from("<H", body, at + 6)[0], page_size)]) if at + 8 <= page_size else b""
                leaf_keys[0] = (leaf_keys[0][0] if leaf_keys[0] else key_at(0), key_at(count - 1))
            # While mending, a branch's children are walked apart, in order, after its nodes: (node, child, offset, key).
            children = []
            # Records without the big-data flag that may have lost it to a bad bit, judged after the page's nodes.
            cleared = []
            if not mending:
                offsets = [struct.unpack_from("<H", body, 16 + 2 * index)[0] for index in range(count)]
            elif not tiles(offsets, upper):
                # A node's offset a bad bit changed, where one bit from it the page's nodes lie end to end.
                found = [(index, offsets[index] ^ 1 << bit) for index in range(count) for bit in range(16)
                         if upper <= offsets[index] ^ 1 << bit <= page_size - 8
                         and tiles(offsets[:index] + [offsets[index] ^ 1 << bit] + offsets[index + 1:], upper)]
                if len(found) == 1:
                    index, place = found[0]
                    mends.append((number * page_size + 16 + 2 * index, struct.pack("<H", place),
                                  f"places a record at byte {offsets[index]} of its page, though its place is byte {place} (node {index} of page {number}, in {tree})"))
                    offsets[index] = place
            for index in range(count):
                offset = offsets[index]
                if offset < upper or offset + 8 > page_size:
                    raise ValueError(f"node {index} of page {number} ({tree}) lies outside its page")
                low, high, node_flags, key_size = struct.unpack_from("<HHHH", body, offset)
                if mending and offset + 8 + key_size > page_size:
                    # A key's size a bad bit sent past the page, where one bit from it the node fills its place.
                    besides = 0 if branch else 8 if node_flags & 0x01 else low | high << 16
                    fit = size_filling(room(offset), besides, key_size)
                    if fit is not None:
                        mends.append((number * page_size + offset + 6, struct.pack("<H", fit),
                                      f"gives a record's key as {key_size} bytes, though its place in its page holds {fit} (node {index} of page {number}, in {tree})"))
                        key_size = fit
                start = offset + 8 + key_size
                if start > page_size:
                    raise ValueError(f"the key of node {index} of page {number} ({tree}) runs past its page")
                if branch:
                    # A branch node's child: the two size fields and the flags, as one 48-bit page number.
                    if mends is not None and not free:
                        children.append((index, low | high << 16 | node_flags << 32, offset, bytes(body[offset + 8:min(start, page_size)])))
                    else:
                        pending.append((low | high << 16 | node_flags << 32, level + 1))
                    continue
                size = low | high << 16
                # A free-list record's key: the transaction id that freed its pages.
                key = struct.unpack_from("<Q", body, offset + 8)[0] if free and key_size == 8 else None
                # LMDB reads a record by three of its flags only (big data, sub-database, duplicates): a reader passes
                # over the others, as the Swift reader does.
                read_flags = node_flags & 0x07
                if mends is not None and not free:
                    # Duplicates in a file without a database that keeps them, a named database's record outside the
                    # main database, a value flagged as stored on overflow pages that LMDB would keep in its page.
                    wrong = read_flags & 0x04 | (0 if named else read_flags & 0x02)
                    if read_flags & 0x01 and 8 + key_size + size <= largest_node and start + size <= page_size:
                        wrong |= 0x01
                    if wrong:
                        kind = (f"as stored on overflow pages, though its {size} bytes lie in its page" if wrong & 0x01
                                else "as holding duplicates, in a database that keeps none" if wrong & 0x04
                                else "as a named database's, outside the main database")
                        node_flags &= ~wrong
                        mends.append((number * page_size + offset, struct.pack("<HHH", low, high, node_flags),
                                      f"flags a record {kind} (node {index} of page {number}, in {tree})"))
                        read_flags &= ~wrong
                    # A value's size that runs past the page, where one bad bit from it the value fills the node's place
                    # (LMDB lays nodes end to end from the page's end, each 8 bytes, the key and the value, made even).
                    fit = size_filling(room(offset), key_size, size) if not read_flags & 0x01 and start + size > page_size else None
                    if fit is not None:
                        mends.append((number * page_size + offset, struct.pack("<HHH", fit & 0xFFFF, fit >> 16, node_flags),
                                      f"gives a record's value as {size} bytes, though its place in its page holds {fit} (node {index} of page {number}, in {tree})"))
                        size = fit
                if (not named and not free and read_flags == 0 and 8 + key_size + size > largest_node
                        and (8 + key_size + 8 + 1) & ~1 == room(offset) and start + 8 <= page_size
                        # A size one bad bit from filling the place explains it instead (mended so where mending).
                        and not (start + size > page_size and size_filling(room(offset), key_size, size) is not None)):
                    # A value too large for its page, whose place holds its key and a page number and no more: a
                    # big-data record whose flag a bad bit may have cleared (check_cleared_big_data).
                    cleared.append((index, offset, low, high, node_flags, key_size, size, struct.unpack_from("<Q", body, start)[0]))
                    continue
                if read_flags & ~0x03 or read_flags == 0x03:
                    raise ValueError(f"node {index} of page {number} ({tree}) has flags no record has ({node_flags})")
                node_flags = read_flags
                if mends is not None and named and node_flags == 0 and size == 48 and start + 48 <= page_size:
                    unflagged.append((number * page_size + offset, low, high, body[offset + 8:start], body[start:start + 48],
                                      f"(node {index} of page {number}, in {tree})"))
                if node_flags & 0x01:  # the value lies in overflow pages
                    if start + 8 > page_size:
                        raise ValueError(f"node {index} of page {number} ({tree}) runs past its page")
                    overflow(struct.unpack_from("<Q", body, start)[0], size, tree, free, key)
                    continue
                if start + size > page_size:
                    raise ValueError(f"the value of node {index} of page {number} ({tree}) runs past its page")
                if node_flags & 0x02:  # a named database's record
                    if not named or size != 48:
                        raise ValueError(f"node {index} of page {number} ({tree}) describes a database where none can be")
                    (sub_depth,) = struct.unpack_from("<H", body, start + 6)
                    (sub_root,) = struct.unpack_from("<Q", body, start + 40)
                    if mends is not None:
                        counts, name = struct.unpack_from("<QQQQ", body, start + 8), database_name(body[offset + 8:start])
                        journal.append(("declared", name, declared.get(name)))
                        declared[name] = (sum(counts[:3]), counts[3])
                    if bytes(body[offset + 8:start]) not in passing_over:
                        walk(sub_root, sub_depth, database_name(body[offset + 8:start]), False, False)
                    database_records.append((number * page_size + offset + 8, bytes(body[offset + 8:start]),
                                             f"(node {index} of page {number}, in {tree})"))
                elif free:
                    list_free(body[start:start + size], number, key)
            for record in cleared:
                check_cleared_big_data(number, tree, *record)
            # A child walked apart, so that a page number a bad bit changed is mended once every tree is walked.
            for index, child_page, offset, key in children:
                child = {"page": number, "index": index, "stated": child_page, "offset": number * page_size + offset,
                         "level": level + 1, "depth": depth, "tree": tree, "named": named,
                         "low": key if index > 0 else None,
                         "high": children[index + 1][3] if index + 1 < len(children) else None}
                failure = walk_child(child_page, child)
                if failure is not None:
                    child["failure"] = None if failure == "keys" else failure
                    unwalked.append(child)

    def check_cleared_big_data(number, tree, index, offset, low, high, node_flags, key_size, size, first):
        """A record without the big-data flag (0x01) whose value is too large for its page and whose place holds its key
        and a page number: where that page starts an overflow run of exactly the pages the value takes, none reached
        by the walk so far nor named by the free list, a bad bit cleared the flag (FORMAT.md, "A record's header"). LMDB
        would read the page number and the bytes after it as the value: the record is refused, and mended where
        mending. Otherwise it is read as it states."""
        pages = (16 - 1 + size) // page_size + 1
        run = range(first, first + pages)
        if (2 <= first and first + pages - 1 <= last_page and first + pages <= whole_pages
                and struct.unpack_from("<H", data, first * page_size + 10)[0] & READ_FLAGS == 0x04
                and struct.unpack_from("<I", data, first * page_size + 12)[0] == pages
                and not any(run_page in seen or run_page in listed_free for run_page in run)):
            if mends is None:
                raise ValueError(f"node {index} of page {number} ({tree}) lacks the big-data flag, though its {size} bytes lie on "
                                 f"the {pages} overflow pages from page {first}, which nothing else reaches")
            overflow(first, size, tree, False, None)
            mends.append((number * page_size + offset, struct.pack("<HHH", low, high, node_flags | 0x01),
                          f"marks a record as held in its page, though its {size} bytes lie on the {pages} overflow pages from "
                          f"page {first}, which nothing else reaches (node {index} of page {number}, in {tree})"))
            return
        if offset + 8 + key_size + size > page_size:
            raise ValueError(f"the value of node {index} of page {number} ({tree}) runs past its page")

    def database_name(key):
        """A named database as the walk names it; a damaged key size makes the name run into other bytes: then it is
        not shown."""
        return f"database '{key.decode()}'" if len(key) <= 64 and all(32 <= c < 127 for c in key) else "a database whose name is damaged"

    def mend_database_flags():
        """Mends each unflagged value that is a named database's record a bad bit took the flag (0x02) from, as its 48
        bytes show once the trees are walked (FORMAT.md, "A record's header"): LMDB's persistent flags, keys alone, no
        padding, and a tree no other record reaches, from its root, of the depth it states, of as many pages as it
        counts and as many records; or an empty tree. The tree is walked then, as the record's."""
        for at, low, high, key, record, where in unflagged:
            padding, db_flags, depth, branch_pages, leaf_pages, overflow_pages, entries, root = struct.unpack("<IHHQQQQQ", record)
            if padding or db_flags & ~0x0A:
                continue
            name = database_name(key)
            if root == EMPTY_TREE:
                if depth or branch_pages or leaf_pages or overflow_pages or entries:
                    continue
            else:
                # The tree walked as the record's, and taken back where it is not sound or not what the record counts.
                state, before = snapshot(), list(tallies.get(name, [0, 0]))
                try:
                    walk(root, depth, name, False, False)
                    read = tallies.get(name, [0, 0])
                    sound = (read[0] - before[0], read[1] - before[1]) == (branch_pages + leaf_pages + overflow_pages, entries)
                except ValueError:
                    sound = False
                if not sound:
                    restore(state)
                    continue
            mends.append((at, struct.pack("<HHH", low, high, 0x02),
                          f"marks the main database's record of {name} as a plain value, though its 48 bytes describe that database's tree {where}"))

    def check_database_names():
        """A named database's record whose name is none of DATABASE_NAMES, but one bit from exactly one that no record
        has, is that database's, renamed by a bad bit: LMDB would not find it, so it is damage, mended where mending."""
        missing = DATABASE_NAMES - {key for _, key, _ in database_records}
        for at, key, where in database_records:
            if key in DATABASE_NAMES:
                continue
            near = [name for name in missing if len(name) == len(key) and sum(bin(a ^ b).count("1") for a, b in zip(name, key)) == 1]
            if len(near) != 1:
                continue
            stated = "".join(chr(c) if 32 <= c < 127 else f"\\x{c:02X}" for c in key)
            database = f"database '{near[0].decode()}'"
            if mends is None:
                raise ValueError(f"the main database names its record of {database} '{stated}', one bit from that name, which no record has")
            mends.append((at, near[0], f"names the main database's record of {database} '{stated}', one bit from that name, which no record has {where}"))

    def mend_child_pages():
        """Mends the child page number of each unwalked branch node that a bad bit changed (FORMAT.md, "A record's
        header"): of the pages one bit from the number stated, exactly one heads a sound subtree of the child's level
        that no other page reaches, whose keys lie where the branch's keys put the child and not where those of another
        branch node the page stated was read for would put it; and every named database then holds the pages and records
        its record counts. Raises the walk's failure for a child that is not so; one whose pages were sound but whose
        keys lie elsewhere is walked as it is."""
        mended_child = False
        while unwalked:
            child = unwalked.pop(0)
            stated = child["stated"]
            found, pending = [], len(unwalked)
            for bit in range(48):
                candidate = stated ^ 1 << bit
                if not 2 <= candidate <= last_page or candidate >= whole_pages or candidate in seen:
                    continue
                state = snapshot()
                leaf_keys[0] = None
                sound = walk_child(candidate, child) is None and len(unwalked) == pending
                keys, claim = leaf_keys[0], claims.get(stated)
                if sound and claim and keys and holds(claim[0], *keys) and (claim[1] is None or holds(child, *claim[1])):
                    sound = False
                restore(state)
                if sound:
                    found.append(candidate)
            if len(found) != 1:
                if child["failure"] is not None:
                    raise child["failure"]
                walk(stated, child["depth"], child["tree"], child["named"], False, child["level"])
                continue
            walk_child(found[0], child)
            mended_child = True
            mends.append((child["offset"], struct.pack("<Q", found[0])[:6],
                          f"gives a branch node's child as page {stated}, though its child is page {found[0]}, one bit from it, which nothing else reaches (node {child['index']} of page {child['page']}, in {child['tree']})"))
        if mended_child:
            for tree, counted in sorted(declared.items()):
                read = tallies.get(tree, [0, 0])
                if tuple(read) != counted:
                    raise ValueError(f"{tree} counts {counted[0]} pages and {counted[1]} records, but its pages as mended hold {read[0]} and {read[1]}")

    try:
        try:
            walk(*roots[0], "the free list", False, True)
        except ValueError:
            if records is not None:
                raise
            # LMDB's readers never read the free list: its damage is a writer's alone, and the main database is walked
            # as though there were none (what a damaged free list led the walk to may be the main database's).
            seen.clear()
            listed_free.clear()
            journal.clear()
            tallies.clear()
        walk(*roots[1], "the main database", True, False)
        mend_database_flags()
        check_database_names()
        if mends is not None:
            mend_child_pages()
    except ValueError as failure:
        return f"has a damaged page structure ({failure})"
    finally:
        data.close()
        file.close()
    return None


class Refused(Exception):
    """LMDB refuses a log as it is, or would read outside its file: the reason, a clause."""


def open_environment(directory, lock):
    """The log's environment and its meta, entries, streams and snapshots databases; Refused when LMDB refuses it, or
    any database the reader opens later (those a log of an older version may lack are opened here too, so that a
    damaged record of one is a refusal, read around like the others)."""
    try:
        env = lmdb.open(directory, readonly=True, max_dbs=16, subdir=True, lock=lock)
        opened = (env, *(env.open_db(name.encode(), create=False) for name in ("meta", "entries", "streams", "snapshots")))
        for name in ("stream-entries", "stream-index", "gaps", "sites", "schemas"):
            try:
                env.open_db(name.encode(), create=False)
            except lmdb.NotFoundError:
                pass
        return opened
    except lmdb.Error as error:
        raise Refused(f"LMDB error: {error}") from None


def read_mended(data_path):
    """Opens a private copy of the data file whose records a bad bit damaged where LMDB finds them (FORMAT.md, "A
    record's header") are mended: the environment, its four databases, the copy's directory (the caller
    removes it once open), and what was wrong, a clause. None where no record has such flags, or the copy mended is
    still refused."""
    mends, done = [], set()
    for page in readable_meta_pages(data_path):
        if plausible_page_size(page.page_size):
            found = []
            check_page_trees(data_path, page.page_size, page.last_page,
                             ((page.free_root, page.free_depth), (page.main_root, page.main_depth)), mends=found)
            mends += [mend for mend in found if mend[0] not in done]
            done.update(mend[0] for mend in found)
    if not mends:
        return None
    directory = tempfile.mkdtemp(prefix="read-log-")
    try:
        copy = os.path.join(directory, "data.mdb")
        shutil.copyfile(data_path, copy)
        with open(copy, "r+b") as file:
            for at, header, _ in mends:
                file.seek(at)
                file.write(header)
        if check_meta_pages(copy, walk_trees=True) is None:
            more = "" if len(mends) == 1 else f", and {len(mends) - 1} more record{'' if len(mends) == 2 else 's'} a bad bit damaged"
            return (*open_environment(directory, lock=False), directory, f"its data.mdb {mends[0][2]}{more}")
    except (OSError, Refused):
        pass
    shutil.rmtree(directory, ignore_errors=True)
    return None


def read_from_other_meta_page(data_path, file_refused):
    """Opens a private copy of the data file pointed at its other meta page (FORMAT.md, "A damaged meta page"): the
    environment, its four databases, the copy's directory (the caller removes it once open), whether the copy holds
    the commit before the last (None where the replaced page cannot say: a zeroed page's id), and what is wrong with the page it replaced where LMDB does not take that for a meta
    page (else None). None where the data file opens on its own (what refused the log was not its meta pages; asked
    only where `file_refused` is false, as the checks before mapping passed), or the other page is not valid or its
    trees cannot be walked."""
    pages = meta_pages(data_path)
    if len(pages) < 2:
        return None
    # Valid: LMDB's magic, version 1 and the first page's size (the second's, where a damaged first gives none).
    size = pages[0].page_size if plausible_page_size(pages[0].page_size) else pages[1].page_size
    valid = [index for index, page in enumerate(pages) if page.valid and page.page_size == size]
    if len(valid) == 1:
        fallback = valid[0]
    elif len(valid) == 2:
        # The page LMDB does not read with its lock file: that at the index of the highest id's parity (the first on a
        # tie) is the one it reads.
        fallback = 1 - (max(pages[1].transaction, pages[0].transaction) & 1)
    else:
        return None
    replacing = 1 - fallback
    directory = tempfile.mkdtemp(prefix="read-log-")
    try:
        copy = os.path.join(directory, "data.mdb")
        shutil.copyfile(data_path, copy)
        if not file_refused:
            try:
                open_environment(directory, lock=False)[0].close()
                shutil.rmtree(directory, ignore_errors=True)
                return None
            except Refused:
                pass
        with open(copy, "r+b") as file:
            file.seek(fallback * size)
            page = bytearray(file.read(size))
            page[0:8] = struct.pack("<Q", replacing)  # the page number of the place it now holds
            file.seek(replacing * size)
            file.write(page)
        if check_meta_pages(copy, walk_trees=True) is None:
            opened = open_environment(directory, lock=False)
            replaced = pages[replacing]
            problem = None
            if replaced.magic != 0xBEEFC0DE:
                problem = "one of its meta pages lacks LMDB's magic number"
            elif replaced.version != 1:
                problem = f"one of its meta pages gives version {replaced.version}, where LMDB's is 1"
            # A page LMDB takes for a meta page is compared by its id; one it does not is believed only where its id is
            # next to the fallback's, as commits leave them: a zeroed page's id, 0, says nothing of which is later.
            ours = pages[fallback].transaction
            if replaced.valid or replaced.transaction == ours + 1:
                is_commit_before = ours < replaced.transaction
            elif replaced.transaction + 1 == ours:
                is_commit_before = False
            else:
                is_commit_before = None
            return (*opened, directory, is_commit_before, problem)
    except (OSError, Refused):
        pass
    shutil.rmtree(directory, ignore_errors=True)
    return None


def main():
    arguments = sys.argv[1:]
    copy = "--copy" in arguments
    arguments = [a for a in arguments if a != "--copy"]
    path = arguments[0]
    only = arguments[2] if len(arguments) == 3 and arguments[1] == "--stream" else None
    # LMDB writes into lock.mdb even read-only: it must be the log's own file, not a link to one elsewhere
    # (docs/FORMAT.md, "Lock files are the log's own").
    for name in ("lock.mdb", "writer.lock"):
        try:
            status = os.lstat(os.path.join(path, name))
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(status.st_mode) or status.st_nlink != 1:
            sys.exit(f"{path}: its {name} is not a lock file of its own (a link or a special file); delete it and a new one is made")
    data_path = os.path.join(path, "data.mdb")
    if not os.path.isfile(data_path):
        sys.exit(f"{path}: it has no data.mdb that is a regular file (a log is a directory holding one)")
    # The trees are walked only when nothing writes the log: a writer reuses pages while they are read.
    writing = writer_holds(path)
    problem = check_meta_pages(data_path, walk_trees=copy or not writing)
    read_around = None
    # Where only the pages of the call sites are damaged, the log is read in place without them (FORMAT.md, "Reading
    # without call sites"): every action's site is then unknown, which the end says.
    sites_lost = False
    try:
        if problem:
            raise Refused(f"its data.mdb {problem}")
        env, meta, entries, streams, snapshots = open_environment(path, lock=not copy)
    except Refused as refusal:
        # Records whose headers a bad bit changed are mended first: that reads the last commit whole.
        mended = None if writing else read_mended(data_path)
        sites_lost = (not writing and not mended and problem is not None
                      and check_meta_pages(data_path, walk_trees=True, passing_over={b"sites"}) is None)
        opened = None if writing or mended or sites_lost else read_from_other_meta_page(data_path, file_refused=problem is not None)
        if sites_lost:
            env, meta, entries, streams, snapshots = open_environment(path, lock=not copy)
            directory = None
            read_around = f"{path} was read whole but for its actions' call sites, whose pages are damaged; LMDB refuses the log as it is: {refusal}"
        elif mended:
            env, meta, entries, streams, snapshots, directory, mend_problem = mended
            read_around = f"{path} was read whole, from a copy with that record mended; LMDB refuses the log as it is: {mend_problem}"
        elif opened:
            env, meta, entries, streams, snapshots, directory, is_commit_before, page_problem = opened
            refusal = page_problem or refusal
            read_around = (
                f"{path} was read as it stood one commit before its last, so what the last commit wrote is missing; LMDB refuses the log as it is: {refusal}"
                if is_commit_before else f"{path} was read whole, from its sound meta page; LMDB refuses the log as it is: {refusal}"
                if is_commit_before is not None else
                f"{path} was read from its one sound meta page, which holds its last commit or the one before it (the damaged page, which would tell, is lost), so what the last commit wrote may be missing; LMDB refuses the log as it is: {refusal}")
        else:
            sys.exit(f"{path}: {refusal}")
        if directory:
            shutil.rmtree(directory, ignore_errors=True)
    # The stream index: blocks in `stream-index` since version 5, a record per entry in `stream-entries` before.
    try:
        index, blocks = env.open_db(b"stream-entries", create=False), False
    except lmdb.NotFoundError:
        index, blocks = env.open_db(b"stream-index", create=False), True
    try:
        gap_db = env.open_db(b"gaps", create=False)
    except lmdb.NotFoundError:
        gap_db = None
    try:
        site_db = None if sites_lost else env.open_db(b"sites", create=False)
    except lmdb.NotFoundError:
        site_db = None
    try:
        schema_db = env.open_db(b"schemas", create=False)
    except lmdb.NotFoundError:
        schema_db = None
    with env.begin() as txn:
        # Version 6: a CRC-32C over every other key and value, in key order, each after its length as a u32,
        # seals the metadata. It is checked wherever it is present, and puts back one record a bad bit damaged where
        # it vouches for exactly one mending (docs/FORMAT.md, "A damaged value or key").
        records = [(bytes(key), bytes(value)) for key, value in txn.cursor(db=meta)]
        if not seal_holds(records):
            mended = mended_meta(records)
            if mended is not None:
                records, (key, value) = mended
                print(visible(f"warning: the metadata's record {key!r} is damaged; its seal vouches for {value!r}"), file=sys.stderr)
        values = dict(records)
        version = meta_number(values, b"format-version")
        if version is None:
            sys.exit("the log has no format-version: it is not a ReactorLog log")
        if version > 8:
            sys.exit(f"format version {version} is newer than 8")
        seal = values.get(b"metadata-checksum")
        if seal is None and version >= 6:
            sys.exit(f"the metadata breaks a rule: no metadata-checksum in a log of format version {version}")
        if seal is not None and not seal_holds(records):
            sys.exit("the metadata: checksum mismatch")
        # Version 2: stretches retention removed from the middle of a stream, each ending at the snapshot replay
        # restarts from. Numbers inside them may be missing, as below the trim floor.
        gaps = []
        if version >= 2 and gap_db is not None:
            for key, record in txn.cursor(db=gap_db):
                checked(record, f"gap {key.hex()}")
                stream_id, first, resumes_at = struct.unpack_from("<IQQ", record, 4) if len(record) == 24 else (0, 0, 0)
                if key_fields(">IQ", key, "a gap") != (stream_id, resumes_at) or not 1 <= first <= resumes_at:
                    sys.exit(f"gap {key.hex()} breaks a rule: its record does not match its key")
                if txn.get(key, db=snapshots) is None:
                    sys.exit(f"gap {key.hex()} breaks a rule: no snapshot of its stream at #{resumes_at}")
                gaps.append((first, resumes_at, stream_id))
        durability = values.get(b"durability")
        if durability is not None and durability not in (b"sync", b"grouped", b"nosync"):
            sys.exit(f"the metadata breaks a rule: durability '{durability.decode(errors='replace')}'")
        floor = meta_number(values, b"sequence-floor") or 0
        names, floors = {}, {}
        for key, record in txn.cursor(db=streams):
            checked(record, f"stream {key.hex()}")
            (stream_id,) = key_fields(">I", key, "a stream")
            name_length, _, type_length, fingerprint_length, state_length = (
                struct.unpack_from("<HIHHI", record, 6) if len(record) >= 40 else (-1, 0, 0, 0, 0))
            if len(record) != 40 + name_length + type_length + fingerprint_length + state_length:
                sys.exit(f"stream {key.hex()} breaks a rule: its record is {len(record)} bytes, not the 40 of its header and the lengths it gives")
            name = text_field(record[40:40 + name_length], f"stream {key.hex()}'s name")
            if name in names.values():
                sys.exit(f"the streams break a rule: two streams are named '{name}'")
            names[stream_id] = name
            floors[stream_id] = struct.unpack_from("<Q", record, 32)[0]
            if floors[stream_id] > floor:
                sys.exit(f"stream '{name}' breaks a rule: its sequence floor {floors[stream_id]} is above the log's ({floor})")
        codec_name = values.get(b"codec")
        print(visible(f"format {version}, codec {text_field(codec_name, 'the codec name') if codec_name else 'unknown'}, streams {sorted(names.values())}"))

        # Version 3: a stream resumed with other types keeps, per finished era, the fingerprint of the types that
        # wrote its numbers up to the era's end; a reader decodes those payloads as they say (or migrates them).
        if schema_db is not None:
            for key, record in txn.cursor(db=schema_db):
                checked(record, f"schema era {key.hex()}")
                stream_id, through = struct.unpack_from("<IQ", record, 4) if len(record) > 16 else (0, 0)
                if key_fields(">IQ", key, "a schema era") != (stream_id, through) or stream_id not in names:
                    sys.exit(f"schema era {key.hex()} breaks a rule: its record does not match its key or names no stream")
                if version < 3:
                    sys.exit(f"schema era {key.hex()} breaks a rule: the log says format version {version}")
                fingerprint = text_field(record[16:], f"schema era {key.hex()}")
                print(visible(f"schema era: stream '{names[stream_id]}' up to #{through} written by {fingerprint}"))

        # Call sites: an action's index value may carry, after its kind, the number of its text in `sites`.
        sites = {}
        if site_db is not None:
            for key, record in txn.cursor(db=site_db):
                checked(record, f"call site {key.hex()}")
                sites[key_fields(">I", key, "a call site")[0]] = text_field(record[4:], f"call site {key.hex()}")

        listed = {}  # the index: kind and call-site number, by (stream id, sequence)
        latest = {}
        for stream_id, sequence, kind, site in index_items(txn, index, blocks, keys_sealed=version >= 8):
            if sequence <= latest.get(stream_id, 0):
                sys.exit(f"stream id {stream_id} breaks a rule: its index lists #{sequence} after #{latest[stream_id]}")
            latest[stream_id] = sequence
            listed[(stream_id, sequence)] = (kind, site)

        def sent_from(stream_id, sequence):
            number = listed.get((stream_id, sequence), (0, 0))[1]
            if number == 0:
                return ""
            if sites_lost:
                return " @ ?"
            if number not in sites:
                sys.exit(f"entry #{sequence} breaks a rule: call site number {number} is not in the log")
            return f" @ {sites[number]}"

        def show(fields):
            kind, codec, stream_id, sequence, timestamp, cause, case_bytes, payload_bytes = fields
            if kind not in KINDS:
                # A new kind comes with a new format version (FORMAT.md, Versioning): in this one it is damage.
                sys.exit(f"entry #{sequence} has kind {kind}, which this reader does not know: the log is damaged "
                         "or was written against a later docs/FORMAT.md")
            case = text_field(case_bytes, f"entry #{sequence}'s case name")
            check_rules(txn, entries, kind, case, stream_id, sequence, cause)
            payload = payload_text(codec, payload_bytes, f"entry #{sequence}")
            when = datetime.datetime.fromtimestamp(timestamp / 1e9, datetime.timezone.utc).strftime("%H:%M:%S.%f")[:-3]
            caused = f" <- #{cause}" if cause else ""
            print(visible(f"{when} #{sequence} {names[stream_id]} {KINDS[kind]} {case} {payload}{caused}{sent_from(stream_id, sequence)}"))

        if only is None:
            previous = 0
            for key, record in txn.cursor(db=entries):
                for fields in record_entries(key, record):
                    sequence = fields[3]
                    if sequence <= previous:
                        sys.exit(f"entry {sequence} breaks a rule: it is stored after #{previous}")
                    if sequence > previous + 1 and sequence - 1 > floor and not covered(gaps, max(previous + 1, floor + 1), sequence - 1):
                        sys.exit(f"entry {sequence} breaks a rule: the numbers before it are missing, above the trim floor {floor} and outside every gap")
                    previous = sequence
                    show(fields)
        else:
            stream_id = next(i for i, n in names.items() if n == only)
            for sequence, (listed_kind, _) in sorted((q, v) for (i, q), v in listed.items() if i == stream_id):
                fields = entry_at(txn, entries, sequence)
                if fields is None:
                    sys.exit(f"stream {only} breaks a rule: its index lists #{sequence}, which is not in the log")
                owner, kind = fields[2], fields[0]
                if owner != stream_id or listed_kind != kind:
                    sys.exit(f"stream {only} breaks a rule: its index lists #{sequence} as its own, of kind {listed_kind}, but it is not")
                show(fields)
        count, based = 0, set()
        for key, record in txn.cursor(db=snapshots):
            stream_id, sequence = key_fields(">IQ", key, "a snapshot")
            checked(record, f"snapshot {key.hex()}")
            if stream_id not in names:
                sys.exit(f"snapshot {key.hex()} breaks a rule: it names stream id {stream_id}, which the log does not describe")
            entry = entry_at(txn, entries, sequence)
            oldest = stream_id not in based
            based.add(stream_id)
            ends_gap = any(last == sequence and owner == stream_id for _, last, owner in gaps)
            if entry is None and not (oldest and sequence <= floors[stream_id]) and not ends_gap:
                sys.exit(f"snapshot {key.hex()} breaks a rule: entry #{sequence} is not in the log")
            if entry is not None and entry[2] != stream_id:
                sys.exit(f"snapshot {key.hex()} breaks a rule: entry #{sequence} belongs to another stream")
            count += 1
        print(f"{count} snapshots, all checksums match")
    if read_around:
        sys.exit(read_around)
    ids = transaction_ids(data_path)
    if ids and ids != (0, 0) and not (ids[0] % 2 == 0 and ids[1] == ids[0] + 1 or ids[1] % 2 == 1 and ids[0] == ids[1] + 1):
        # A commit writes its meta page at the index of its id's parity, one above the last's (FORMAT.md).
        sys.exit(f"{path}: its data.mdb has meta pages whose transaction ids, {ids[0]} and {ids[1]}, no run of commits leaves "
                 "(page 0 holds an even one, page 1 the odd one next to it): one is damaged, and what was read may be the "
                 "log as it stood before its last commit")
    # Ids that keep that pattern may still have made the commit before current: the free lists tell. Not beside a
    # writer, whose commits change their pages under the walk.
    order = None if not ids or writing else commit_order_problem(data_path)
    if order:
        sys.exit(f"{path}: its data.mdb {order}")


if __name__ == "__main__":
    # A reader that closes the pipe (`read-log.py LOG | head`) ends the listing quietly, as it ends `cat`.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        try:
            main()
        except lmdb.Error as error:
            # A damaged page LMDB noticed while reading: one line, as for any other damage.
            sys.exit(f"{[a for a in sys.argv[1:] if a != '--copy'][0]}: LMDB error: {error}")
    except SystemExit as stop:
        # A refusal names what the log holds (a stream's name): one line, shown as any other line is.
        if isinstance(stop.code, str):
            sys.exit(visible(stop.code))
        raise
