import EventLogKit
import Foundation

/// Copies of entries whose payloads share one buffer and whose case names share one string each. A blame over
/// millions of steps keeps a copy of each change's mutation and action; made one by one, each payload took a `Data`
/// storage object and an allocation of its own, about 130 bytes for a payload of 40 (`reactorlog-bench blame`'s
/// heap a change).
///
/// A copy comes without its payload, and where the payload lies in the arena; once every copy is made,
/// ``buffer()`` gives the buffer to slice the payloads from (``LogEntry/withPayload(_:)``). A slice taken while the
/// buffer still grew would keep the storage it was cut from alive beside the grown one.
struct EntryArena {
    private var bytes: [UInt8] = []
    /// The case names met so far, each kept once. Shared only up to ``nameLimit`` distinct names: a reactor has
    /// tens of cases, and a log from elsewhere must not make each lookup a long walk.
    private var names: [String] = []
    private static let nameLimit = 64

    /// A copy of `view` with an empty payload, and where its payload lies in ``buffer()``.
    mutating func copy(_ view: EntryView) -> (entry: LogEntry, payload: Range<Int>) {
        let start = bytes.count
        bytes.append(contentsOf: view.payload)
        let entry = LogEntry(
            sequence: view.sequence, streamID: view.streamID, stream: view.stream, kind: view.kind,
            timestamp: view.timestamp, cause: view.cause, caseName: name(view.caseName), codec: view.codec, payload: Data())
        return (entry, start..<bytes.count)
    }

    /// A copy of `entry`, read already, with an empty payload, and where its payload lies in ``buffer()``.
    mutating func copy(_ entry: LogEntry) -> (entry: LogEntry, payload: Range<Int>) {
        entry.withView { copy($0) }
    }

    /// Every payload copied, in one buffer made to measure, to slice with the ranges the copies came with.
    consuming func buffer() -> Data {
        Data(bytes)
    }

    /// The case name `bytes` as a string, the one made for it before when there was one.
    private mutating func name(_ bytes: UnsafeRawBufferPointer) -> String {
        // A name of up to 15 bytes is stored inside the string itself, and a search would cost more than it saves.
        if bytes.count <= 15 { return String(decoding: bytes, as: UTF8.self) }
        if let known = names.first(where: { $0.utf8.elementsEqual(bytes) }) { return known }
        let name = String(decoding: bytes, as: UTF8.self)
        if names.count < Self.nameLimit { names.append(name) }
        return name
    }
}

extension LogEntry {
    /// This entry with `payload` as its payload.
    func withPayload(_ payload: Data) -> LogEntry {
        LogEntry(
            sequence: sequence, streamID: streamID, stream: stream, kind: kind, timestamp: timestamp, cause: cause,
            caseName: caseName, codec: codec, payload: payload)
    }
}
