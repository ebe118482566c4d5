import Foundation

extension CodecID {
    /// Whether payloads of this codec read as JSON without the Swift types that wrote them: `json` and `binary`.
    public var isReadableAsJSON: Bool { self == .json || self == .binary }

    /// `payload`, written with this codec, as JSON text: itself for `json`, rendered for `binary`, `nil` for a
    /// codec with no JSON form. Throws `BinaryPayload.Malformed` for a binary payload that is not well formed.
    public func json(_ payload: Data) throws -> Data? {
        switch self {
        case .json: payload
        case .binary: try BinaryPayload.json(payload)
        default: nil
        }
    }

    /// Decodes a `Value` from `payload`, written with this codec, throwing the decoder's own error (a
    /// `DecodingError` that names the field) for `json` and `binary`, ``EventLogError/codec(_:)`` for a codec
    /// this version does not know.
    @inlinable public func decode<Value: Decodable>(_ type: Value.Type, from payload: Data) throws -> Value {
        if self == .binary { return try BinaryLogCodec.shared.decode(type, from: payload) }
        return try decodeOtherwise(type, from: payload)
    }

    /// ``decode(_:from:)-(_,Data)`` from bytes that stay where they are, such as an ``EntryView``'s payload: a
    /// binary payload is decoded in place, a JSON one through a `Data` that borrows the bytes.
    ///
    /// Inlinable, so that where `Value` is a concrete type with a `BinaryPayloadDecodable` conformance, the
    /// compiler finds the conformance: a replay that decodes value after value with this does not ask the
    /// runtime for it each time.
    @inlinable public func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        if self == .binary { return try BinaryLogCodec.shared.decode(type, from: bytes) }
        return try decodeOtherwise(type, from: bytes)
    }

    /// ``decode(_:from:)-(_,Data)`` for a codec other than `binary`.
    @usableFromInline func decodeOtherwise<Value: Decodable>(_ type: Value.Type, from payload: Data) throws -> Value {
        guard self == .json else { throw EventLogError.codec("The payload uses the \(self) codec, which this program does not know.") }
        return try Self.jsonCodec.decode(type, from: payload)
    }

    /// ``decode(_:from:)-(_,UnsafeRawBufferPointer)`` for a codec other than `binary`.
    @usableFromInline func decodeOtherwise<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        // A JSON payload is decoded through a `Data` that borrows the bytes; any other codec throws.
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return try decodeOtherwise(type, from: Data()) }
        return try decodeOtherwise(type, from: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
    }

    private static let jsonCodec = JSONLogCodec()

    /// The payload this codec writes for the value of JSON text `json`: what an import of an export needs. For the
    /// binary codec, text that is not JSON throws `BinaryPayload.InvalidJSON`, whose sentence says where and why.
    public func payload(fromJSON json: Data) throws -> Data {
        switch self {
        case .binary: Data(try BinaryPayload.fromJSON(json))
        default: json
        }
    }
}
