import BinaryPayloadKit

extension JSONValue {
    /// What an enum case holds, read from a binary payload by ``enumCase(binary:)``.
    package enum CaseValue {
        /// The case's value is an object: its members in their recorded order (for a case with associated values,
        /// its labels as declared, `_0`, `_1`… for unlabeled ones).
        case arguments([(label: String, value: JSONValue)])
        /// The case's value is not an object.
        case single(JSONValue)
    }

    /// A binary payload of one enum case, `{"name":{"label":value,…}}` or `{"name":value}`, read as the case's name
    /// and what it holds, each argument's value built alone: what `JSONValue(binary:)` gives for such a payload (an
    /// object of one member), without the two dictionaries, which listing a log would make for every line.
    ///
    /// `nil` for a payload of any other shape or not well formed, and wherever the list could differ from the
    /// dictionary's members: more than 16 arguments, a repeated label, or a label that is not ASCII (a dictionary
    /// compares keys by canonical equivalence, under which `K`, U+212A, is `K`). A caller then reads the whole value.
    package static func enumCase(binary payload: UnsafeRawBufferPointer) -> (name: String, value: CaseValue)? {
        var reader = BinaryPayload.Reader(payload)
        do throws(BinaryPayload.Malformed) {
            guard try reader.byte() == BinaryPayload.object, let nameLength = try reader.keyLength() else { return nil }
            let name = try reader.text(nameLength)
            let valueStart = reader.offset
            let held: CaseValue
            if try reader.byte() == BinaryPayload.object {
                try reader.checkDepth(1)
                var arguments: [(label: String, value: JSONValue)] = []
                while let length = try reader.keyLength() {
                    let bytes = try reader.utf8(length)
                    guard arguments.count < 16, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
                    let label = String(decoding: bytes, as: UTF8.self)
                    guard !arguments.contains(where: { $0.label == label }) else { return nil }
                    arguments.append((label, try value(&reader, depth: 2)))
                }
                held = .arguments(arguments)
            } else {
                reader.offset = valueStart
                held = .single(try value(&reader, depth: 1))
            }
            // One member, and nothing after the payload's value.
            guard try reader.keyLength() == nil, reader.isAtEnd else { return nil }
            return (name, held)
        } catch {
            return nil
        }
    }
}
