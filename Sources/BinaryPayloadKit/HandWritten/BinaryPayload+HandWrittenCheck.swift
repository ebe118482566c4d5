extension BinaryPayload {
    /// Checks a hand-written ``BinaryPayloadCodable`` conformance against the type's `Codable` one for `value`:
    /// both must write the same bytes and name the same case, and the hand-written reading of those bytes must give
    /// what `Codable` reads from them, on its own (the log's fallback to `Codable` after a failed read is not taken
    /// here). That is `value` itself for most types, and its members' defaults where coding keys leave members out.
    /// Call it in a test, for a value of each case or shape; it throws a ``HandWrittenCodingMismatch`` that shows
    /// both forms as JSON.
    public static func checkHandWrittenCoding<Value: BinaryPayloadCodable & Equatable>(of value: Value) throws {
        let viaCodable = try BinaryPayloadEncoder.encode(value, direct: false)
        let direct = try BinaryPayloadEncoder.encode(value)
        func json(_ payload: [UInt8]) -> String {
            let text = payload.withUnsafeBytes { try? BinaryPayload.json($0) }
            return text.map { String(decoding: $0, as: UTF8.self) } ?? "the malformed bytes \(payload)"
        }
        func mismatch(_ problem: String) -> HandWrittenCodingMismatch {
            HandWrittenCodingMismatch(type: "\(Value.self)", problem: problem, codable: json(viaCodable.payload), handWritten: json(direct.payload))
        }
        guard direct.payload == viaCodable.payload else { throw mismatch("writes other bytes than Codable") }
        guard direct.caseName == viaCodable.caseName else {
            throw mismatch("names the case \(direct.caseName.map { "\"\($0)\"" } ?? "nil"), where Codable names \(viaCodable.caseName.map { "\"\($0)\"" } ?? "nil")")
        }
        let codableRead = try viaCodable.payload.withUnsafeBytes { try BinaryPayloadDecoder.decodeThroughCodable(Value.self, from: $0, reusing: nil) }
        let read: Value
        do {
            read = try viaCodable.payload.withUnsafeBytes { bytes in
                var reader = BinaryPayloadReader(bytes)
                return try Value(from: &reader)
            }
        } catch {
            throw mismatch("cannot read the Codable bytes, which Codable reads as \(codableRead): \(error)")
        }
        guard read == codableRead else { throw mismatch("reads the Codable bytes as \(read), where Codable reads \(codableRead)") }
    }
}
