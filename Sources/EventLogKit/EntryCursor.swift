import LMDB

/// Reads entries in rising sequence order through one cursor: a stream's entries lie close together in the log,
/// so the next one is usually a step or two ahead, which costs far less than a lookup from the tree's root.
struct EntryCursor {
    private let cursor: Cursor
    /// The sequence number the cursor is on, if it is on an entry.
    private var position: UInt64?
    /// The most steps taken before seeking instead.
    private static let maximumSteps = 8

    init(_ cursor: Cursor) {
        self.cursor = cursor
    }

    /// The record of entry `sequence`, or `nil` when the log has none.
    mutating func record(_ sequence: UInt64) throws -> UnsafeRawBufferPointer? {
        if let current = position, current < sequence, sequence - current <= UInt64(Self.maximumSteps) {
            while let found = try cursor.next(), let key = KeyCoding.decodeSequence(found.key) {
                position = key
                if key >= sequence { return key == sequence ? found.value : nil }
            }
            // The log ended, or a key is no sequence number: look the entry up from the root instead.
        }
        let found = try withUnsafeBytes(of: sequence.bigEndian) { key in try cursor.seek(atOrAfter: key) }
        guard let found, let key = KeyCoding.decodeSequence(found.key) else {
            position = nil
            return nil
        }
        position = key
        return key == sequence ? found.value : nil
    }
}
