@testable import EventLogKit
import Foundation
import TestSupport
import Testing

/// Whether a writer holds a log, as readers ask before they read without LMDB's lock file: only a writer's exclusive
/// lock counts, and on Linux asking takes no lock a starting writer could trip over.
@Suite("Writer lock")
struct WriterLockTests {
    let scratch = ScratchDirectory()

    @Test("a writer's lock is seen, in this process and through the kernel's table; another reader's shared lock is not a writer")
    func heldOnlyByAWriter() throws {
        let directory = scratch.file("held")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let path = directory + "/" + LogLayout.writerLockFile
        #expect(!WriterLock.isHeld(directory: directory), "no lock file yet")
        let reader = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(reader >= 0)
        defer { close(reader) }
        #expect(flock(reader, LOCK_SH | LOCK_NB) == 0)
        #expect(!WriterLock.isHeld(directory: directory), "a shared lock is a reader asking")
        flock(reader, LOCK_UN)
        let writer = try WriterLock(directory: directory)
        // The table is read in pieces while the suite's other locks come and go, which can miss a line (see
        // `isHeld`): asked as readers ask where a miss would be unsafe, several readings.
        #expect(WriterLock.isHeld(directory: directory, readings: 5))
        if FileManager.default.isReadableFile(atPath: "/proc/locks") {
            // The file named as the kernel names it (device and inode): a wrong number would miss every writer.
            #expect((1...5).contains { _ in WriterLock.isListedAsLocked(path) == true })
        }
        writer.release()
        #expect(!WriterLock.isHeld(directory: directory))
        #expect(WriterLock.isListedAsLocked(path) != true)
    }

    @Test("a lock file removed between a writer's open and its lock is not what it keeps: it locks the file now there, and the next writer is refused")
    func lockFileRemovedBeforeLocking() throws {
        let directory = scratch.file("raced")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let path = directory + "/" + LogLayout.writerLockFile
        var tries = 0
        // As a first open that failed beside this one removes what it made, on this writer's first try only.
        let writer = try WriterLock(directory: directory) {
            tries += 1
            if tries == 1 { #expect(unlink(path) == 0) }
        }
        defer { writer.release() }
        #expect(tries == 2, "the lock on the removed file was let go of and taken again on the file at the path")
        #expect(WriterLock.isHeld(directory: directory, tryingTheLock: true), "the file at the path is the one locked")
        #expect(throws: EventLogError.self, "a second writer finds the lock held") { try WriterLock(directory: directory) }
    }

    @Test("the kernel's table is read to its end, however many locks it lists")
    func wholeLockTable() throws {
        guard FileManager.default.isReadableFile(atPath: "/proc/locks") else { return }
        // 300 locks take about 16 KiB of the table; Foundation's reading stopped at 4 KiB, about 77 lines, and a writer
        // listed after them went unseen.
        let directory = scratch.file("many")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let held = try (0..<300).map { index in
            let fd = open(directory + "/lock-\(index)", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            try #require(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
            return fd
        }
        defer { held.forEach { close($0) } }
        let table = try #require(WriterLock.lockTable())
        #expect(table.split(separator: "\n").count >= 300)
        // Each of them, as the kernel names it, is found.
        for index in [0, 150, 299] {
            #expect(WriterLock.isListedAsLocked(directory + "/lock-\(index)") == true, "lock \(index)")
        }
    }
}
