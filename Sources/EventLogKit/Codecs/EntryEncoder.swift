/// Turns values that senders handed over unencoded into entries' case names and payloads, on the log's writer
/// thread: what a recorder registers with its ``LogStream`` once (``LogStream/register(_:)``), so that each send
/// hands over the value and the encoder's number, allocates nothing for a value of up to three words, and counts no
/// reference to an object the writer thread also counts.
package protocol EntryEncoder: AnyObject, Sendable {
    /// Writes the payload, in the log's codec, of `value`, appended as an entry of kind `kind`, at the end of
    /// `buffer` (the bytes of the batch it is written in), and returns its case name. A thrown error makes the entry
    /// `unencodable` (its number is kept); the encoder reports it to its owner. What it wrote before throwing is cut
    /// off by the caller.
    func encode(_ value: any Sendable, kind: EntryKind, into buffer: inout ByteBuffer) throws -> String
}

/// What the writer thread needs for the deferred entries of one registered encoder: the encoder, and the tally
/// of its stream's snapshot policy, which learns each mutation's payload size once it is encoded. A class: the
/// writer passes it along for every entry, and a reference is one count where the pair was two.
final class DeferredEncoding: Sendable {
    let encoder: any EntryEncoder
    let tally: PayloadTally

    init(encoder: any EntryEncoder, tally: PayloadTally) {
        self.encoder = encoder
        self.tally = tally
    }

    /// Writes the payload of `entry`'s value at the end of `buffer` and returns its case name, a mutation's size
    /// added to `tallied`, for the caller to add to ``tally`` (once for a run of entries: the tally is an atomic that
    /// the sender reads after each mutation, and an add for each entry made the two cores pass its memory back and
    /// forth); `nil`, with `buffer` as it was, when the encoder throws or makes what a record cannot hold.
    func encode(_ entry: borrowing DeferredEntry, into buffer: inout ByteBuffer, tallying tallied: inout Int) -> String? {
        let start = buffer.count
        guard let caseName = try? encoder.encode(entry.value, kind: entry.kind, into: &buffer),
              caseName.utf8.count <= EntryRecord.maxCaseNameLength, buffer.count - start <= Int(UInt32.max) else {
            buffer.truncate(to: start)
            return nil
        }
        if entry.kind == .mutation { tallied += buffer.count - start }
        return caseName
    }
}

/// The encoder of entries appended with a closure (``LogStream/append(_:cause:callSite:encoding:)``): the value
/// handed over is the closure, which it calls.
final class ClosureEncoder: EntryEncoder {
    /// What such a closure returns.
    typealias Encode = @Sendable () throws -> (caseName: String, payload: [UInt8])

    /// The one instance: it holds nothing.
    static let shared = ClosureEncoder()

    private init() {}

    func encode(_ value: any Sendable, kind: EntryKind, into buffer: inout ByteBuffer) throws -> String {
        // The only values this encoder is registered for are the closures `LogStream.append(_:cause:callSite:encoding:)`
        // queues (a stream's `closureEncoder`): never anything read from a log or given by a user.
        let (caseName, payload) = try (value as! Encode)()
        buffer.append(contentsOf: payload)
        return caseName
    }
}
