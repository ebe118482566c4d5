import Foundation

/// Consecutive entries packed into one record of `entries` (format version 7), keyed by the first one's sequence
/// number: LMDB's overhead per record (an 8-byte key, an 8-byte node header, a 2-byte pointer) and the checksum are
/// paid once for about fifty entries, times are small distances, and a case name is spelled once per block.
/// Specified in docs/FORMAT.md, "Entry blocks"; all integers little-endian, varints LEB128.
///
///     0  u32 CRC-32C of bytes 4..<end        then each entry, back to back:
///     4  u8  0xB7, the block marker            varint sequence distance from the entry before (0 for the first)
///     5  u16 number of entries                 u8 kind, u8 codec, varint stream id
///     7  i64 time of the first entry           varint time distance from the entry before, zigzag (the first: 0)
///     15 u64 sequence number of the first      varint cause distance (sequence − cause; 0 = none)
///            entry, equal to the key           varint case name: k ≥ 1 is the k-th name spelled earlier in the
///     23 the entries                             block, 0 one spelled in this entry
///                                              varint payload length P
///                                              for a name spelled here: varint length N, N bytes (UTF-8)
///                                              P bytes payload
///
/// The marker sits where a single record has its kind byte (1…6, or 0x81…0x86 in the compact layout), so a reader
/// tells the three apart by that byte, and a log continued by a version-7 writer holds all of them.
enum EntryBlock {
    /// The byte at offset 4 of a block.
    static let marker: UInt8 = 0xB7
    /// The bytes before the first entry.
    static let headerSize = 23
    /// The most bytes a block grows to by appending: the largest value LMDB keeps inside a 4 KiB page beside
    /// another (a larger one takes pages of its own). An entry larger than that is a block by itself.
    static let capacity = 2022
    /// The most entries a block holds (its count is 16 bits).
    static let maximumCount = Int(UInt16.max)

    /// Whether `record`, a value of `entries`, is a block (not a single entry's record).
    static func isBlock(_ record: UnsafeRawBufferPointer) -> Bool {
        record.count > 4 && record[4] == marker
    }

    /// The first number a block records, when its checksum matches: where its entries start whatever the key it is
    /// stored under says (a damaged key is outside the checksum).
    static func recordedFirst(_ record: UnsafeRawBufferPointer) -> UInt64? {
        guard isBlock(record), record.count > headerSize else { return nil }
        let reader = ByteReader(bytes: record)
        return reader.checksumMatches ? reader.u64(15) : nil
    }

    /// The numbers a block records, first to last, when its checksum matches and its entries read: what it holds
    /// whatever the key it is stored under says.
    static func recordedNumbers(_ record: UnsafeRawBufferPointer) -> ClosedRange<UInt64>? {
        recordedFirst(record).flatMap { numbers(record, key: $0) }
    }

    /// The numbers a sound block stored under `key` holds, first to last; `nil` when it is damaged.
    static func numbers(_ record: UnsafeRawBufferPointer, key: UInt64) -> ClosedRange<UInt64>? {
        guard var reader = try? Reader(key: key, block: record) else { return nil }
        var last = key
        do {
            while let header = try reader.next() { last = header.sequence }
        } catch {
            return nil
        }
        return key...last
    }

    /// The first number a block stored under `key` records when it is another one and its checksum vouches for it:
    /// the key alone is damaged. The header is read unchecked first, so a sound block costs no checksum.
    static func misfiledFirst(_ record: UnsafeRawBufferPointer, key: UInt64) -> UInt64? {
        recordsFirst(record, other: key) ? recordedFirst(record) : nil
    }

    /// Whether a block records a first number other than `key`, the one it is stored under: its key or its header is
    /// damaged. Read without the checksum, for a walk that only steps over the block.
    static func recordsFirst(_ record: UnsafeRawBufferPointer, other key: UInt64) -> Bool {
        isBlock(record) && record.count > headerSize && ByteReader(bytes: record).u64(15) != key
    }

    // MARK: Reading

    /// Walks the entries of one block, checking each; the headers' ranges index the block's bytes.
    struct Reader {
        /// The block's bytes.
        let block: UnsafeRawBufferPointer
        /// Its key: the sequence number of its first entry.
        let key: UInt64
        /// How many entries the block says it holds.
        let count: Int
        /// How many of them ``next()`` has not read yet.
        var remaining: Int { count - read }
        private var offset = EntryBlock.headerSize
        private var read = 0
        private var sequence: UInt64
        private var time: Int64
        /// Where each name spelled so far lies, in the order spelled.
        private(set) var names: [Range<Int>]

        /// Checks the block's checksum and header; throws ``EventLogError/corruptEntry(sequence:reason:)`` at `key`.
        /// The list of the names it spells starts from `names`, emptied: a reader that goes from block to block hands
        /// on the last one's (``names``), since a lookup enters a block each time and the list was an allocation.
        init(key: UInt64, block: UnsafeRawBufferPointer, reusing names: consuming [Range<Int>] = []) throws(EventLogError) {
            let reader = ByteReader(bytes: block)
            guard block.count > EntryBlock.headerSize, block[4] == EntryBlock.marker else {
                throw .corruptEntry(sequence: key, reason: "the block of entries from it is \(block.count) bytes, shorter than its header")
            }
            guard reader.checksumMatches else {
                throw .corruptEntry(sequence: key, reason: "its block's checksum does not match its contents (the block of entries from it)")
            }
            // The key is outside the checksum: the block records its first number too, so a damaged key is found.
            guard reader.u64(15) == key else {
                throw .corruptEntry(sequence: key, reason: "its block records #\(reader.u64(15)) as its first entry, but is stored under #\(key)")
            }
            self.block = block
            self.key = key
            self.count = Int(reader.u16(5))
            self.sequence = key
            self.time = reader.i64(7)
            guard count > 0 else { throw .corruptEntry(sequence: key, reason: "the block of entries from it holds none") }
            names.removeAll(keepingCapacity: true)
            // One allocation for the names of a block, which spells a handful, instead of one each time it doubles.
            if names.capacity == 0 { names.reserveCapacity(min(count, 16)) }
            self.names = names
        }

        /// The next entry's header, or `nil` after the last; throws at the first entry that breaks the layout.
        mutating func next() throws(EventLogError) -> EntryRecord.Header? {
            do { return try step(from: 0) } catch { throw reported(error) }
        }

        /// The first entry numbered `sequence` or higher, as ``next()`` returns it, and `nil` when the block ends
        /// first; throws at the first entry on the way that breaks the layout.
        mutating func next(from sequence: UInt64) throws(EventLogError) -> EntryRecord.Header? {
            do { return try step(from: sequence) } catch { throw reported(error) }
        }

        /// What is wrong with an entry, and which; ``reported(_:)`` makes it the error a caller sees.
        private struct Damage: Error {
            /// The entry it concerns (the one before, while the next one's number is not known).
            let sequence: UInt64
            let problem: Problem

            /// Which check the entry failed; ``reported(_:)`` words each.
            enum Problem {
                case nextCutShort, nextOutOfOrder, cutShort, unknownKind(UInt8), streamIDOutOfRange, causeOutOfRange
                case nameRunsPast, unspelledName(UInt64, spelled: Int), payloadRunsPast, bytesAfterLast(Int)
            }
        }

        /// The one parser of an entry: reads and checks entries until one numbered `target` or higher, and returns
        /// its header. It moves past an entry only when it is sound, and makes a header only for the one it returns:
        /// a lookup steps over half a block on average.
        @inline(__always)
        private mutating func step(from target: UInt64) throws(Damage) -> EntryRecord.Header? {
            while true {
                guard read < count else {
                    guard offset == block.count else {
                        throw Damage(sequence: self.sequence, problem: .bytesAfterLast(block.count - offset))
                    }
                    return nil
                }
                guard let (distance, afterDistance) = Varint.read(block, at: offset) else {
                    throw Damage(sequence: self.sequence, problem: .nextCutShort)
                }
                guard (read == 0) == (distance == 0), distance <= UInt64.max - self.sequence else {
                    throw Damage(sequence: self.sequence, problem: .nextOutOfOrder)
                }
                let sequence = self.sequence + distance
                var at = afterDistance
                @inline(__always) func number() throws(Damage) -> UInt64 {
                    guard let (value, after) = Varint.read(block, at: at) else {
                        throw Damage(sequence: sequence, problem: .cutShort)
                    }
                    at = after
                    return value
                }
                guard at + 2 <= block.count else { throw Damage(sequence: sequence, problem: .cutShort) }
                guard let kind = EntryKind(byte: block[at]) else {
                    throw Damage(sequence: sequence, problem: .unknownKind(block[at]))
                }
                let codec = CodecID(rawValue: block[at + 1])
                at += 2
                guard let streamID = UInt32(exactly: try number()) else {
                    throw Damage(sequence: sequence, problem: .streamIDOutOfRange)
                }
                // Wrapping, as the writer took the distance: any two times are a distance apart.
                let time = self.time &+ Self.unzigzag(try number())
                let causeDistance = try number()
                guard causeDistance <= sequence else { throw Damage(sequence: sequence, problem: .causeOutOfRange) }
                let name = try number()
                let length = try number()
                var spelled = 0..<0
                if name == 0 {
                    let size = try number()
                    guard size <= UInt64(block.count - at), Int(size) <= EntryRecord.maxCaseNameLength else {
                        throw Damage(sequence: sequence, problem: .nameRunsPast)
                    }
                    spelled = at..<(at + Int(size))
                    at += Int(size)
                } else {
                    guard name <= UInt64(names.count) else {
                        throw Damage(sequence: sequence, problem: .unspelledName(name, spelled: names.count))
                    }
                }
                guard length <= UInt64(block.count - at) else {
                    throw Damage(sequence: sequence, problem: .payloadRunsPast)
                }
                if name == 0 { names.append(spelled) }
                offset = at + Int(length)
                self.sequence = sequence
                self.time = time
                read += 1
                guard sequence >= target else { continue }
                return EntryRecord.Header(
                    kind: kind, codec: codec, streamID: streamID, sequence: sequence, timestamp: time,
                    cause: causeDistance == 0 ? 0 : sequence - causeDistance,
                    caseRange: name == 0 ? spelled : names[Int(name) - 1], payloadRange: at..<offset)
            }
        }

        /// `damage` as the error a reader of the log sees.
        private func reported(_ damage: Damage) -> EventLogError {
            let what: String
            switch damage.problem {
            case .bytesAfterLast(let bytes):
                return .corruptEntry(
                    sequence: damage.sequence, reason: "the block of entries from #\(key) has \(bytes) bytes after its last entry")
            case .nextCutShort: what = "an entry after this one is cut short"
            case .nextOutOfOrder: what = "an entry after this one is out of order"
            case .cutShort: what = "this entry is cut short"
            case .unknownKind(let byte): what = "this entry's kind byte \(byte) is unknown"
            case .streamIDOutOfRange: what = "this entry's stream id is out of range"
            case .causeOutOfRange: what = "this entry's cause is out of range"
            case .nameRunsPast: what = "this entry's case name runs past the block"
            case .unspelledName(let name, let spelled):
                what = "this entry names case name \(name) of \(spelled) spelled"
            case .payloadRunsPast: what = "this entry's payload runs past the block"
            }
            return .corruptEntry(sequence: damage.sequence, reason: "in the block of entries from #\(key), \(what)")
        }

        static func unzigzag(_ value: UInt64) -> Int64 {
            Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
        }
    }

    // MARK: Writing

    /// A block being filled: from nothing, or continuing the last block of the log. Not copyable: its bytes have
    /// one owner (``ByteBuffer``).
    struct Builder: ~Copyable {
        /// The block's bytes so far, checksum and count not yet written.
        private var bytes = ByteBuffer(capacity: EntryBlock.capacity)
        /// The sequence number of its first entry; `nil` while it is empty.
        private(set) var key: UInt64?
        /// How many entries it holds.
        private(set) var count = 0
        private var last: (sequence: UInt64, time: Int64) = (0, 0)
        /// Each name spelled in the block, in order, with its length in UTF-8: the k-th is named by k. A list, not a
        /// dictionary: a block spells a handful, and comparing short strings costs less than hashing one. The lengths
        /// are compared first: most names another entry's name is compared with differ in length, and two different
        /// strings cost the runtime's comparison.
        private var names: [(text: String, length: Int)] = []

        /// An empty block.
        init() {}

        /// The block `block`, stored under `key`, continued; `nil` when it is damaged or full, so that it is left as
        /// it is (for `verify` to report) and a new block starts after it.
        init?(continuing block: UnsafeRawBufferPointer, key: UInt64) {
            guard block.count < EntryBlock.capacity, var reader = try? Reader(key: key, block: block),
                  reader.count < EntryBlock.maximumCount else { return nil }
            var names: [(text: String, length: Int)] = []
            var last: (UInt64, Int64) = (key, 0)
            do {
                while let header = try reader.next() {
                    let name = String(decoding: block[header.caseRange], as: UTF8.self)
                    if !names.contains(where: { $0.text == name }) { names.append((name, name.utf8.count)) }
                    last = (header.sequence, header.timestamp)
                }
            } catch {
                return nil
            }
            self.init()
            bytes.append(block)
            self.key = key
            self.count = reader.count
            self.last = last
            self.names = names
        }

        var isEmpty: Bool { count == 0 }

        /// Empties the builder for the next block, keeping its memory: a new builder allocated its bytes and grew its
        /// list of names again, one allocation after another, for every block a writer fills.
        mutating func reset() {
            bytes.truncate(to: 0)
            key = nil
            count = 0
            last = (0, 0)
            names.removeAll(keepingCapacity: true)
        }

        /// The size of the block so far, which ``write(into:)`` writes.
        var size: Int { bytes.count }

        /// Appends `entry`, which follows every entry of the block, when it fits: an empty block takes any entry,
        /// another stays within ``EntryBlock/capacity`` and its count. Returns whether it did.
        mutating func append(_ entry: EntryRecord.Pending) -> Bool {
            entry.payload.withUnsafeBytes { append(entry, payload: $0) }
        }

        /// ``append(_:)`` of an entry whose payload is `payload`, wherever the entry keeps it.
        mutating func append<Entry: EntryFields>(_ entry: Entry, payload: UnsafeRawBufferPointer) -> Bool {
            let first = key == nil
            let distance = first ? 0 : entry.sequence &- last.sequence
            let time = first ? 0 : Self.zigzag(entry.timestamp &- last.time)
            let cause = entry.cause == 0 ? 0 : entry.sequence &- entry.cause
            let caseLength = entry.caseName.utf8.count
            let known = names.firstIndex { $0.length == caseLength && $0.text == entry.caseName }
            if !first {
                guard count < EntryBlock.maximumCount else { return false }
                // The exact size only near the capacity: below, the most the numbers can take fits.
                let spelled = known == nil ? caseLength : 0
                if bytes.count + Self.numbersRoom + spelled + payload.count > EntryBlock.capacity {
                    let size = Varint.size(distance) + 2 + Varint.size(UInt64(entry.streamID)) + Varint.size(time)
                        + Varint.size(cause) + (known.map { Varint.size(UInt64($0 + 1)) } ?? (1 + Varint.size(UInt64(caseLength))))
                        + Varint.size(UInt64(payload.count)) + spelled + payload.count
                    guard bytes.count + size <= EntryBlock.capacity else { return false }
                }
            } else {
                key = entry.sequence
                bytes.appendZeros(EntryBlock.headerSize)
                bytes.withUnsafeMutableBytes { header in
                    header.storeBytes(of: entry.timestamp.littleEndian, toByteOffset: 7, as: Int64.self)
                    header.storeBytes(of: entry.sequence.littleEndian, toByteOffset: 15, as: UInt64.self)
                }
            }
            // The numbers are written where they go: a byte at a time through `append` costs more, and so did a
            // buffer on the stack copied in after.
            bytes.append(upTo: Self.numbersRoom) { start in
                let buffer = UnsafeMutableRawBufferPointer(start: start, count: Self.numbersRoom)
                var end = Varint.write(distance, into: buffer, at: 0)
                buffer[end] = entry.kind.rawValue
                buffer[end + 1] = entry.codec.rawValue
                end = Varint.write(UInt64(entry.streamID), into: buffer, at: end + 2)
                end = Varint.write(time, into: buffer, at: end)
                end = Varint.write(cause, into: buffer, at: end)
                end = Varint.write(known.map { UInt64($0 + 1) } ?? 0, into: buffer, at: end)
                end = Varint.write(UInt64(payload.count), into: buffer, at: end)
                if known == nil { end = Varint.write(UInt64(caseLength), into: buffer, at: end) }
                return end
            }
            if known == nil {
                names.append((entry.caseName, caseLength))
                bytes.append(utf8Of: entry.caseName)
            }
            bytes.append(payload)
            last = (entry.sequence, entry.timestamp)
            count += 1
            return true
        }

        /// Writes the finished block into `buffer`, which is exactly ``size`` bytes: marker, count, checksum.
        func write(into buffer: UnsafeMutableRawBufferPointer) {
            bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
            let out = ByteWriter(bytes: buffer)
            out.u8(4, EntryBlock.marker)
            out.u16(5, UInt16(count))
            out.sealChecksum()
        }

        /// The most bytes an entry's numbers take: seven varints of at most ten bytes, and the kind and codec bytes.
        static let numbersRoom = 72

        static func zigzag(_ value: Int64) -> UInt64 {
            UInt64(bitPattern: (value << 1) ^ (value >> 63))
        }
    }
}
