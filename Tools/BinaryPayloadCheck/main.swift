import BinaryPayloadFixtures
import BinaryPayloadKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Hand-written binary conformances checked against `Codable` in a release build, which the test suite (built for
// debugging) never runs: the writer's inlined containers have twice come out wrong in release builds only (a
// pointer lent to the containers, a writer moved back in a `defer`; docs/ARCHITECTURE.md). The README's test
// command runs this; it exits 1 on the first conformance that disagrees, or on values written one after another into
// one buffer (with values that throw partway between them) that do not read back.

var checked = 0
do {
    for value in HandWrittenFixtures.shapes { try BinaryPayload.checkHandWrittenCoding(of: value); checked += 1 }
    for value in HandWrittenFixtures.records { try BinaryPayload.checkHandWrittenCoding(of: value); checked += 1 }
    for value in HandWrittenFixtures.trees { try BinaryPayload.checkHandWrittenCoding(of: value); checked += 1 }
} catch {
    print("binary-payload-check: a hand-written conformance disagrees with Codable in this build: \(error)")
    exit(1)
}
if let problem = HandWrittenFixtures.checkAppending() {
    print("binary-payload-check: values written one after another into one buffer, as a log's writer does, come out wrong in this build: \(problem)")
    exit(1)
}
print("binary-payload-check: \(checked) values write and read as through Codable, and one after another in one buffer.")
