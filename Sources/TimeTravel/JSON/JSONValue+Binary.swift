import EventLogKit
import Foundation

extension JSONValue {
    /// The value of a binary payload (docs/FORMAT.md), built in one pass over its bytes: exactly what rendering it
    /// as JSON text (`BinaryPayload.json`) and parsing that text would give, without making the text. Throws
    /// `BinaryPayload.Malformed` for anything that is not exactly one well-formed value, as rendering does.
    init(binary payload: UnsafeRawBufferPointer) throws(BinaryPayload.Malformed) {
        var reader = BinaryPayload.Reader(payload)
        self = try Self.value(&reader, depth: 0)
        guard reader.isAtEnd else { throw reader.malformed("bytes follow the payload's value") }
    }

    /// `init(binary:)` of a payload held in `Data`.
    init(binary payload: Data) throws(BinaryPayload.Malformed) {
        let built = payload.withUnsafeBytes { bytes in Result { () throws(BinaryPayload.Malformed) in try JSONValue(binary: bytes) } }
        self = try built.get()
    }

    /// What `JSONValue(binary: payload)[path]` gives for a payload the encoder wrote, building only the value at
    /// `path`: the members and elements the path passes by are stepped over, not made into values. How blame reads
    /// the new value at each change, from the encoding of what lies on the path. Every read is bounds-checked, so
    /// damaged bytes throw `BinaryPayload.Malformed` or give some value, never trap; but what lies off the path is
    /// only stepped over, so damage there is not reported as reading the whole value would report it.
    init?(binary payload: UnsafeRawBufferPointer, at path: StatePath) throws(BinaryPayload.Malformed) {
        var reader = BinaryPayload.Reader(payload)
        guard let value = try Self.value(&reader, at: path.components[...], depth: 0) else { return nil }
        self = value
    }

    /// `init(binary:at:)` of a payload held in `Data`.
    init?(binary payload: Data, at path: StatePath) throws(BinaryPayload.Malformed) {
        let found = payload.withUnsafeBytes { bytes in
            Result { () throws(BinaryPayload.Malformed) in try JSONValue(binary: bytes, at: path) }
        }
        guard let value = try found.get() else { return nil }
        self = value
    }

    /// The value at `path` from the value at the reader, which is well formed, as `subscript(path:)` finds it in
    /// the whole value: an object's member by name (the last of a repeated one), `count` for the number of
    /// distinct members, elements or characters where no member has that name, an element by index.
    private static func value(
        _ reader: inout BinaryPayload.Reader, at path: ArraySlice<StatePath.Component>, depth: Int
    ) throws(BinaryPayload.Malformed) -> JSONValue? {
        guard let component = path.first else { return try value(&reader, depth: depth) }
        let tag = try reader.byte()
        switch (component, tag) {
        case (.key(let name), BinaryPayload.object):
            let start = reader.offset
            var found: Int?
            while let length = try reader.keyLength() {
                let keyStart = reader.offset
                var matches = Self.asciiKey(try reader.utf8(length), is: name)
                if matches == nil {
                    // As a dictionary compares keys: by canonical equivalence.
                    reader.offset = keyStart
                    matches = try reader.text(length) == name
                }
                if matches == true { found = reader.offset }
                try reader.skipValue(depth: depth + 1)
            }
            if let found {
                reader.offset = found
                return try value(&reader, at: path.dropFirst(), depth: depth + 1)
            }
            guard name == "count" else { return nil }
            // The members a dictionary keeps: distinct names.
            reader.offset = start
            var names: Set<String> = []
            while let length = try reader.keyLength() {
                names.insert(try reader.text(length))
                try reader.skipValue(depth: depth + 1)
            }
            return counted(.number(JSONNumber(Int64(names.count))), then: path)
        case (.key("count"), BinaryPayload.array):
            return counted(.number(JSONNumber(Int64(try reader.skipElements(depth: depth + 1)))), then: path)
        case (.key("count"), BinaryPayload.string):
            return counted(.number(JSONNumber(Int64(try reader.text(try reader.length()).count))), then: path)
        case (.index(let index), BinaryPayload.array):
            var skipped = 0
            while try !reader.arrayEnds() {
                if skipped == index { return try value(&reader, at: path.dropFirst(), depth: depth + 1) }
                try reader.skipValue(depth: depth + 1)
                skipped += 1
            }
            return nil
        default:
            return nil
        }
    }

    /// A count found at the first component of `path`: the value when the path ends there; past a number, none.
    private static func counted(_ count: JSONValue, then path: ArraySlice<StatePath.Component>) -> JSONValue? {
        path.count == 1 ? count : nil
    }

    /// Whether the key `bytes` is `name`, when both are ASCII (where equal strings are equal bytes); `nil` otherwise,
    /// and for a name without contiguous UTF-8. The name is read in place: `withUTF8` would copy it first.
    private static func asciiKey(_ bytes: UnsafeRawBufferPointer, is name: String) -> Bool? {
        name.utf8.withContiguousStorageIfAvailable { wanted -> Bool? in
            guard wanted.allSatisfy({ $0 < 0x80 }), bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            return wanted.elementsEqual(bytes)
        } ?? nil
    }

    /// The value at the reader, `depth` containers deep, as ``init(binary:)`` reads a whole payload.
    static func value(_ reader: inout BinaryPayload.Reader, depth: Int) throws(BinaryPayload.Malformed) -> JSONValue {
        try reader.checkDepth(depth)
        let tag = try reader.byte()
        switch tag {
        case BinaryPayload.null: return .null
        case BinaryPayload.false: return .bool(false)
        case BinaryPayload.true: return .bool(true)
        // Integers exactly, as parsing the number's text gives.
        case BinaryPayload.integer: return .number(JSONNumber(try reader.integer()))
        case BinaryPayload.unsigned: return .number(JSONNumber(try reader.varint()))
        case BinaryPayload.double: return .number(.double(try reader.double()))
        case BinaryPayload.string: return .string(try reader.text(try reader.length()))
        case BinaryPayload.decimal:
            let start = reader.offset
            // As parsing the rendered text: every digit kept, a number beyond a double's range refused.
            guard let number = JSONNumber(text: try reader.decimalText()) else {
                reader.offset = start
                throw reader.malformed("a decimal number is out of a double's range")
            }
            return .number(number)
        case BinaryPayload.array:
            var values: [JSONValue] = []
            while try !reader.arrayEnds() { values.append(try value(&reader, depth: depth + 1)) }
            return .array(values)
        case BinaryPayload.object:
            var members: [String: JSONValue] = [:]
            while let length = try reader.keyLength() {
                let key = try reader.text(length)
                // The last of a repeated key wins, as in the parser.
                members[key] = try value(&reader, depth: depth + 1)
            }
            return .object(members)
        default:
            throw reader.notAValue(tag)
        }
    }
}
