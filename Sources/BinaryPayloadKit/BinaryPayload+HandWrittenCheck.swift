extension BinaryPayload {
    /// Checks a hand-written ``BinaryPayloadCodable`` conformance against the type's `Codable` one for `value`:
    /// both must write the same bytes and name the same case, and the hand-written reading of the `Codable` bytes
    /// must give `value` back. Call it in a test, for a value of each case or shape; it throws a
    /// ``HandWrittenCodingMismatch`` that shows both forms as JSON.
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
        let decoded = try viaCodable.payload.withUnsafeBytes { try BinaryPayloadDecoder.decode(Value.self, from: $0) }
        guard decoded == value else { throw mismatch("reads the Codable bytes as another value, \(decoded)") }
    }
}
