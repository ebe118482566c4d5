/// Turns values that senders handed over unencoded into entries' case names and payloads, on the log's writer
/// thread: what a recorder gives ``LogStream`` with each value, so that a send hands over the value and a
/// reference, and allocates nothing for a value of up to three words.
package protocol EntryEncoder: AnyObject, Sendable {
    /// The case name and payload, in the log's codec, of `value`, appended as an entry of kind `kind`. A thrown
    /// error makes the entry `unencodable` (its number is kept); the encoder reports it to its owner.
    func encode(_ value: any Sendable, kind: EntryKind) throws -> (caseName: String, payload: [UInt8])
}

/// The encoder of entries appended with a closure (``LogStream/append(_:cause:callSite:encoding:)``): the value
/// handed over is the closure, which it calls.
final class ClosureEncoder: EntryEncoder {
    /// What such a closure returns.
    typealias Encode = @Sendable () throws -> (caseName: String, payload: [UInt8])

    /// The one instance: it holds nothing.
    static let shared = ClosureEncoder()

    private init() {}

    func encode(_ value: any Sendable, kind: EntryKind) throws -> (caseName: String, payload: [UInt8]) {
        try (value as! Encode)()
    }
}
