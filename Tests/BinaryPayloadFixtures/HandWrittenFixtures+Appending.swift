import BinaryPayloadKit

extension HandWrittenFixtures {
    /// Values that throw partway through writing themselves: a non-finite number after other members, and one deep
    /// inside nested containers.
    public static let poisoned: [Record] = [
        Record(id: 9, title: "poisoned", note: "after a note", scores: [1, .nan], shapes: []),
        Record(id: 10, title: "deep", note: nil, scores: [], shapes: [.mixed(["a"], count: 1, tags: [:]), .labelled(name: "x", ratio: .infinity)]),
    ]

    /// Writes every fixture one after another into one buffer, as a log's writer writes a batch's payloads, each
    /// followed by every poisoned value, which must throw and leave the buffer as it was; then reads each back from
    /// where it lies. Returns the first problem as a sentence, or `nil`.
    public static func checkAppending() -> String? {
        var buffer = ByteBuffer(capacity: 16)
        buffer.append(0xEE)   // a byte already there: an earlier entry's
        func append<Value: BinaryPayloadCodable & Equatable>(_ values: [Value]) -> String? {
            var placed: [(Value, Range<Int>)] = []
            for value in values {
                let start = buffer.count
                let caseName: String?, alone: (payload: [UInt8], caseName: String?)
                do {
                    caseName = try BinaryPayloadEncoder.encode(value, into: &buffer)
                    alone = try BinaryPayloadEncoder.encode(value)
                } catch {
                    return "\(value) did not encode: \(error)"
                }
                guard buffer.array[start...].elementsEqual(alone.payload), caseName == alone.caseName else {
                    return "\(value) written after other bytes differs from it written alone"
                }
                placed.append((value, start..<buffer.count))
                for poison in poisoned {
                    let before = buffer.array
                    do {
                        _ = try BinaryPayloadEncoder.encode(poison, into: &buffer)
                        return "\(poison) encoded"
                    } catch {}
                    guard buffer.array == before else {
                        return "a value that threw partway left the buffer changed (\(before.count) bytes before, \(buffer.count) after)"
                    }
                }
            }
            for (value, range) in placed {
                let read = buffer.withUnsafeBytes { try? BinaryPayloadDecoder.decode(Value.self, from: UnsafeRawBufferPointer(rebasing: $0[range])) }
                guard read == value else { return "\(value) reads back as \(read.map { "\($0)" } ?? "an error") from where it lies" }
            }
            return nil
        }
        return append(shapes) ?? append(records) ?? append(trees) ?? (buffer.array.first == 0xEE ? nil : "the byte before the first value changed")
    }
}
