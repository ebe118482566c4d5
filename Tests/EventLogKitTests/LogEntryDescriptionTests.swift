import EventLogKit
import Foundation
import TestSupport
import Testing

/// `LogEntry.description`: an entry printed in a test or a playground reads as a listing's line, not as the struct's
/// fields with its payload's byte count.
@Suite("An entry's description")
struct LogEntryDescriptionTests {
    let scratch = ScratchDirectory()

    @Test("a marker, an action, a mutation and its cause, and a mutation without its value, each in one line")
    func lines() throws {
        let log = try scratch.openLog()
        let stream = try log.counterStream()
        let action = try stream.append(.action("first"))
        try stream.append(.mutation("add", 2, cause: action))
        try stream.append(.mutation, cause: action) { throw CocoaError(.coderInvalidValue) }
        try log.flush()
        #expect(try log.readEntries().map(\.description) == [
            "#1 counter opened",
            "#2 counter action first",
            "#3 counter mutation add, caused by #2",
            "#4 counter mutation, caused by #2, its value not recorded: it could not be encoded when it was recorded",
        ])
        try log.close()
    }
}
