#!/usr/bin/env python3
"""Reads a ReactorLog log using only LMDB and JSON, following docs/FORMAT.md, and none of ReactorLog's code.

It proves the format document is sufficient, and shows how to read a log from another language.
Needs the `lmdb` package (pip install lmdb). Usage: read-log.py LOG [--stream NAME]
Prints one line per entry and checks every checksum; exits 1 on the first damaged record.
"""
import datetime
import json
import struct
import sys

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


def checked(record, what):
    if struct.unpack_from("<I", record, 0)[0] != crc32c(record[4:]):
        sys.exit(f"{what}: checksum mismatch")
    return record


def payload_text(codec, payload):
    if codec == 0:
        return ""
    if codec == 1:
        return json.dumps(json.loads(payload), separators=(",", ":"))
    return f"<{len(payload)} bytes of codec {codec}>"


def main():
    path = sys.argv[1]
    only = sys.argv[3] if len(sys.argv) == 4 and sys.argv[2] == "--stream" else None
    env = lmdb.open(path, readonly=True, max_dbs=8, subdir=True)
    meta, entries, streams, index, snapshots = (
        env.open_db(name.encode(), create=False)
        for name in ("meta", "entries", "streams", "stream-entries", "snapshots"))
    with env.begin() as txn:
        version = int(txn.get(b"format-version", db=meta))
        if version > 1:
            sys.exit(f"format version {version} is newer than 1")
        names = {}
        for key, record in txn.cursor(db=streams):
            checked(record, f"stream {key.hex()}")
            (stream_id,) = struct.unpack(">I", key)
            name_length = struct.unpack_from("<H", record, 6)[0]
            names[stream_id] = record[40:40 + name_length].decode()
        print(f"format {version}, codec {txn.get(b'codec', db=meta).decode()}, streams {sorted(names.values())}")

        def show(sequence_key, record):
            checked(record, f"entry {struct.unpack('>Q', sequence_key)[0]}")
            kind, codec, case_length, stream_id, payload_length, sequence, timestamp, cause = struct.unpack_from(
                "<BBHIIQqQ", record, 4)
            assert sequence == struct.unpack(">Q", sequence_key)[0] and len(record) == 40 + case_length + payload_length
            case = record[40:40 + case_length].decode()
            payload = payload_text(codec, bytes(record[40 + case_length:]))
            when = datetime.datetime.fromtimestamp(timestamp / 1e9, datetime.timezone.utc).strftime("%H:%M:%S.%f")[:-3]
            caused = f" <- #{cause}" if cause else ""
            print(f"{when} #{sequence} {names[stream_id]} {KINDS[kind]} {case} {payload}{caused}")

        if only is None:
            for key, record in txn.cursor(db=entries):
                show(key, record)
        else:
            stream_id = next(i for i, n in names.items() if n == only)
            prefix = struct.pack(">I", stream_id)
            cursor = txn.cursor(db=index)
            if cursor.set_range(prefix):
                for key, _ in cursor:
                    if key[:4] != prefix:
                        break
                    show(key[4:], txn.get(key[4:], db=entries))
        count = sum(1 for key, record in txn.cursor(db=snapshots) if checked(record, f"snapshot {key.hex()}"))
        print(f"{count} snapshots, all checksums match")


if __name__ == "__main__":
    main()
