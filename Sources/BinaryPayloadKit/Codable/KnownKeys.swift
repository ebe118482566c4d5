import Foundation

/// What `allKeys` answers for objects of one member, kept per key type and member name by a decoder.
///
/// Every enum case is encoded as an object of one member (the case name), and a synthesized enum decoding asks
/// its container for `allKeys` first. Built afresh, that `[Key]` costs the decoder's unspecialized code a
/// metadata lookup, a generic append and the key's `init(stringValue:)` every time: about a fifth of decoding a
/// small enum. The answer depends on nothing but the key type and the name, so it is made once.
struct KnownKeys {
    /// One answer, boxed so that answers of every key type sit in one table.
    private final class Answer<Key> {
        let keys: [Key]
        init(_ keys: [Key]) { self.keys = keys }
    }

    /// At most this many names are kept per key type, so that keys made at run time (a dictionary's, say) cannot
    /// grow the table without bound; names past it are answered without being kept.
    static let limit = 64

    private var answers: [ObjectIdentifier: [(name: [UInt8], answer: AnyObject)]] = [:]

    /// The keys of `Key` that an object whose one member is `name` has: that one key, or none if `Key` has no
    /// key of that name.
    mutating func keys<Key: CodingKey>(_ type: Key.Type, named name: UnsafeRawBufferPointer) -> [Key] {
        let id = ObjectIdentifier(type)
        if let known = answers[id] {
            for entry in known where entry.name.count == name.count {
                let same = entry.name.withUnsafeBytes { kept in name.isEmpty || memcmp(kept.baseAddress!, name.baseAddress!, name.count) == 0 }
                // The table holds an `Answer<Key>` under `Key`'s identifier and nothing else.
                if same { return unsafeDowncast(entry.answer, to: Answer<Key>.self).keys }
            }
            if known.count >= Self.limit { return Self.make(type, named: name) }
        }
        let keys = Self.make(type, named: name)
        answers[id, default: []].append((Array(name), Answer(keys)))
        return keys
    }

    private static func make<Key: CodingKey>(_ type: Key.Type, named name: UnsafeRawBufferPointer) -> [Key] {
        Key(stringValue: String(decoding: name, as: UTF8.self)).map { [$0] } ?? []
    }
}
