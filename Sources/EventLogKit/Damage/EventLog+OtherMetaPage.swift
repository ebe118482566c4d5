import Foundation
import LMDB

extension EventLog {
    /// Opens, read-only, a log that LMDB refuses because the meta page it would read the log from cannot be read (a
    /// damaged meta page, or damage to pages its commit alone reaches), from the other meta page, where that one
    /// records a commit whose trees are whole: LMDB keeps the commit before the last whole until the next commit, and
    /// its meta page beside the last's. The log is read from a copy of its data file made in `directory` (an empty
    /// directory of the caller's, private to it, which may be removed once the log is open); the log itself is only
    /// read. `isCommitBefore` says whether what was read is the commit before the last (whose entries end where
    /// that commit ended), or the last one (the other meta page, not valid, recorded an older commit); `nil` where the
    /// other page cannot say which (a zeroed page: its transaction id is lost), so what the last commit wrote may be
    /// missing. `problem` says
    /// why LMDB refuses the log as it is, as a clause without the log's path ("one of its meta pages lacks LMDB's
    /// magic number"), for a sentence of the caller's.
    ///
    /// `nil`, the directory left empty, when that cannot be read either, the data file opens as it is (what refused the
    /// log was not its meta pages) or is of a newer format, or a writer has the log open (its pages change under a copy):
    /// the error of ``openReadOnly(at:)-(String)`` is then the one to report.
    public static func openFromOtherMetaPage(
        at path: String, copyingInto directory: String
    ) -> (log: EventLog, isCommitBefore: Bool?, problem: String)? {
        guard let copy = copyDataFile(of: path, into: directory) else { return nil }
        // Left empty where nothing is read, for ``openMended(at:copyingInto:leavingOutPages:)`` to copy into.
        var read = false
        defer { if !read { emptyStaging(directory) } }
        // The data file alone, as it is: where it opens on its own, what refused the log is not its meta pages (its
        // lock files, say), and where it is of a newer format, an older commit would hide that.
        let refusal: String
        do {
            _ = try openReadOnly(at: directory)
            return nil
        } catch {
            switch error {
            case .damagedFile(_, let reason), .notALog(_, let reason): refusal = reason
            case .corruptMetadata(let reason): refusal = "its metadata is corrupt: \(reason)"
            case .storage(_, let error): refusal = "LMDB reports \(error)"
            default: return nil
            }
        }
        guard let made = FallbackCopy.pointAtFallback(dataFile: copy), let log = try? openReadOnly(at: directory) else { return nil }
        read = true
        return (log, made.isCommitBefore, made.replacedPageProblem ?? refusal)
    }

    /// Removes what a copy of a log that was not read left in `directory`: its data file and lock files.
    static func emptyStaging(_ directory: String) {
        for file in [LogLayout.dataFile] + LogLayout.lockFiles { unlink(directory + "/" + file) }
    }

    /// Where a bad bit in a meta page's transaction id may have made LMDB read `log`, open read-only, from the page of
    /// the commit before the last (`LMDB.PageTreeCheck.transactionProblem(inDataFile:)`): the log as the other meta
    /// page records it, when that commit is the later one, read from a copy of the data file made in
    /// `directory`, as ``openFromOtherMetaPage(at:copyingInto:)`` reads one; with what is wrong with the ids, a clause.
    /// Entries are appended at the end and removed from the start, so a later commit's span of sequence numbers is no
    /// lower at either end, and higher at one: entries past `log`'s, or fewer old ones (a trim, a retention step). Where
    /// both commits hold the same entries (the last wrote a snapshot, say), the free lists tell
    /// (`LMDB.PageTreeCheck.fallbackIsLater(inDataFile:)`).
    /// `nil` where the ids are sound, a writer has the log open, or neither shows the other commit later: LMDB then
    /// reads the last commit, or which commit is the last cannot be told.
    public static func openLaterCommit(than log: EventLog, copyingInto directory: String) -> (log: EventLog, problem: String)? {
        guard let problem = log.metaPageTransactionProblem,
              let copy = copyDataFile(of: log.path, into: directory), FallbackCopy.pointAtFallback(dataFile: copy) != nil,
              let other = try? openReadOnly(at: directory),
              let span = try? log.sequenceSpan(), let otherSpan = try? other.sequenceSpan()
        else { return nil }
        let later = otherSpan == span
            ? PageTreeCheck.fallbackIsLater(inDataFile: log.path + "/" + LogLayout.dataFile)
            : otherSpan.lowest >= span.lowest && otherSpan.highest >= span.highest
        return later ? (other, problem) : nil
    }

    /// The lowest sequence number the log holds (past ``highestSequence()`` where it holds none), and the highest.
    private func sequenceSpan() throws(EventLogError) -> SequenceSpan {
        let highest = try highestSequence()
        return SequenceSpan(lowest: try storage.read { txn in try storage.lowestEntry(txn) } ?? highest + 1, highest: highest)
    }

    /// The lowest and highest sequence numbers of a log.
    private struct SequenceSpan: Equatable {
        let lowest: UInt64
        let highest: UInt64
    }

    /// Why the transaction ids of the data file's meta pages are not what LMDB's commits leave, a clause about the data
    /// file ("has meta pages whose transaction ids, …"): a bad bit in one, which may have made LMDB read the log as it
    /// stood one commit before its last (``openLaterCommit(than:copyingInto:)``), and over whose other page a writer's
    /// commit would go (a writer is refused the log). `nil` where they are sound. Read from the file each time: beside a
    /// live writer the ids alone, as its commits change the pages of the free lists that tell ids that keep their
    /// pattern but make the commit before current.
    public var metaPageTransactionProblem: String? {
        let dataPath = path + "/" + LogLayout.dataFile
        guard let problem = PageTreeCheck.transactionProblem(inDataFile: dataPath) else { return nil }
        // Only a problem found asks for a writer, of the lock itself: the kernel's table of locks took 5 to 23 ms a
        // reading on this project's machine, a third of a command on a 10.8M-entry log.
        guard WriterLock.isHeld(directory: path, tryingTheLock: true) else { return problem }
        return PageTreeCheck.transactionProblem(inDataFile: dataPath, readingFreeLists: false)
    }

    /// Copies the data file of the log at `path` into `directory`, with its permissions; the copy's path, or `nil` where
    /// a writer has the log open (its pages change under a copy) or the file cannot be copied.
    static func copyDataFile(of path: String, into directory: String) -> String? {
        guard !WriterLock.isHeld(directory: path, readings: 3) else { return nil }
        var status = stat()
        let source = path + "/" + LogLayout.dataFile, copy = directory + "/" + LogLayout.dataFile
        guard stat(source, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
              FallbackCopy.copy(from: source, to: copy, mode: status.st_mode & 0o666)
        else { return nil }
        return copy
    }
}
