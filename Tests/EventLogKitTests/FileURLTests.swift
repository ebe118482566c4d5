import EventLogKit
import Foundation
import TestSupport
import Testing

/// `EventLog.open(at:)` and `openReadOnly(at:)` with a file URL, as an app's directories come from `FileManager`.
@Suite("Opening a log by file URL")
struct FileURLTests {
    let scratch = ScratchDirectory()

    @Test("a file URL opens the log at its path, spaces and all, for writing and read-only")
    func fileURL() throws {
        let path = scratch.file("Application Support/session log.reactorlog")
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let url = URL(fileURLWithPath: path)
        #expect(url.absoluteString.contains("%20"), "the URL's own spelling of the path differs from the path")
        let log = try EventLog.open(at: url)
        #expect(log.path == path)
        let action = try log.counterStream().append(.action("first"))
        try log.close()
        let read = try EventLog.openReadOnly(at: url)
        #expect(try read.entry(at: action)?.caseName == "first")
        #expect(try EventLog.openReadOnly(at: path).highestSequence() == action)
    }

    @Test("a URL that is not a file's is refused with a sentence")
    func notAFileURL() throws {
        let url = try #require(URL(string: "https://example.com/session.reactorlog"))
        #expect(throws: EventLogError.invalidArgument(
            "https://example.com/session.reactorlog is not a file URL: a log is a directory on this machine's file system, such as a URL FileManager gives.")) {
            try EventLog.open(at: url)
        }
        #expect(throws: EventLogError.self) { try EventLog.openReadOnly(at: url) }
    }
}
