import Foundation

/// Turns payloads (actions, mutations, states) into bytes and back.
///
/// The log writes new payloads with the codec of its ``EventLogConfiguration`` and records the codec's
/// ``id`` in each record, so readers pick the right codec per entry.
public protocol LogCodec: Sendable {
    /// The codec byte written into records.
    var id: CodecID { get }
    /// Encodes `value`.
    func encode<Value: Encodable>(_ value: Value) throws -> Data
    /// Decodes a `Value` from `data`.
    func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value
    /// Encodes `value` and, if the codec learns it while encoding, names its case (`updateQuery` for
    /// `.updateQuery("swift")`); `nil` leaves naming to the caller.
    func encodeNamingCase<Value: Encodable>(_ value: Value) throws -> (payload: Data, caseName: String?)
    /// ``encodeNamingCase(_:)`` with the payload as plain bytes, which the log's writer thread copies into the
    /// record as they are: how a recorded reactor's values are encoded. The default converts the `Data`; a codec
    /// that builds its payload as bytes returns them without one.
    func encodeBytesNamingCase<Value: Encodable>(_ value: Value) throws -> (payload: [UInt8], caseName: String?)
}

extension LogCodec {
    /// ``encode(_:)``, naming no case.
    public func encodeNamingCase<Value: Encodable>(_ value: Value) throws -> (payload: Data, caseName: String?) {
        (try encode(value), nil)
    }

    /// ``encodeNamingCase(_:)``, its payload copied into bytes.
    public func encodeBytesNamingCase<Value: Encodable>(_ value: Value) throws -> (payload: [UInt8], caseName: String?) {
        let (payload, caseName) = try encodeNamingCase(value)
        return (Array(payload), caseName)
    }
}
