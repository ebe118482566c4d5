@testable import BinaryPayloadKit
import BinaryPayloadMacros
import Foundation
import ReactorLog
import Testing

/// What the macro's `init(from:)` does with damaged bytes, as a typed inspector meets them in a log from the field:
/// every truncation and every damaged byte of a valid payload is refused with a `DecodingError` or read as some
/// value, never a trap. The fuzz target covers the reader and hand-written conformances; this covers the code the
/// macro writes, deterministically, on every byte of one value of each shape.
@Suite("the macro's conformances on damaged bytes")
struct DamagedBytesTests {
    @Test("every truncation of a payload is refused with a DecodingError")
    func truncations() throws {
        var refused = 0
        try Self.forEachSample { payload, decode in
            for length in 0..<payload.count {
                #expect(throws: DecodingError.self, "\(length) of \(payload.count) bytes") {
                    try Array(payload[..<length]).withUnsafeBytes { try decode($0) }
                }
                refused += 1
            }
        }
        #expect(refused > 1_000)
    }

    @Test("every byte of a payload damaged in four ways reads as a value or throws a DecodingError, never traps")
    func damagedBytes() throws {
        var (read, refused) = (0, 0)
        try Self.forEachSample { payload, decode in
            for index in payload.indices {
                let original = payload[index]
                for damaged in Set([original ^ 0x01, original ^ 0x80, 0x00, 0xFF]) where damaged != original {
                    var bytes = payload
                    bytes[index] = damaged
                    do {
                        try bytes.withUnsafeBytes { try decode($0) }
                        read += 1
                    } catch is DecodingError {
                        refused += 1
                    } catch {
                        Issue.record("byte \(index) of \(payload) as \(damaged) threw \(error), not a DecodingError")
                    }
                }
            }
        }
        // Both outcomes occur: a damaged digit of a number still reads, a damaged tag does not.
        #expect(read > 100 && refused > 1_000)
    }

    /// Calls `body` with the binary payload of one value of each shape the macro writes and a decode of such bytes
    /// through the macro's conformance alone (no fallback to `Codable`).
    private static func forEachSample(_ body: ([UInt8], (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        func sample<Value: BinaryPayloadCodable>(_ value: Value) throws {
            let payload = try BinaryPayloadEncoder.encode(value).payload
            try body(payload) { bytes in
                var reader = BinaryPayloadReader(bytes)
                _ = try Value(from: &reader)
            }
        }
        for mutation in BinaryPayloadCodingTests.mutations { try sample(mutation) }
        try sample(BinaryPayloadCodingTests.profile)
        try sample(Tagged(kind: .plain, level: .high, empty: Empty(), maybeShapes: [.empty, .circle(radius: 0.5)]))
        try sample(Tree.node(.leaf(1), .node(.leaf(-2), .leaf(300))))
        try sample(Page(items: [Date(timeIntervalSinceReferenceDate: 5)], next: 2))
        try sample(Event(at: Date(timeIntervalSinceReferenceDate: 1), id: UUID(), link: URL(string: "https://example.com")))
        try sample(RepositoryModel(fullName: "apple/swift", stars: 3, isFork: true))
        try sample(Renamed.setRepos(["a"], nextPage: 2, source: "cache"))
        var state = PulsedState(volume: 4)
        state.alert = "Sent"
        try sample(state)
        try sample(Versioned(name: "v"))
    }
}
