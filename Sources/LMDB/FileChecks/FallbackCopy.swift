#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A copy of an LMDB data file, and what makes LMDB read it from the file's fallback meta page: of two valid meta
/// pages, the one LMDB does not read, which records the commit before the last; of one valid page, that one. LMDB
/// 0.9.24 always reads the meta page with the higher transaction id and refuses a file either of whose meta pages is
/// not valid; it has no way to be pointed at the other (`MDB_PREVSNAPSHOT` came in 0.9.26). So the copy's other meta
/// page is overwritten by the fallback one: both then record the same commit. A copy's records a bad bit damaged where
/// LMDB finds them can be mended too (``mendRecords(dataFile:databases:leavingOutPages:rootLeafKeySizes:)``). A log's own file is only ever read.
public enum FallbackCopy {
    /// A copy pointed at its fallback meta page.
    public struct Made: Sendable {
        /// Whether the copy holds the commit before the last: the fallback page's transaction id is below the other's.
        /// `false` where the other page, not valid, recorded the older commit. `nil` where the other page, not valid,
        /// tells neither: its id is not one next to the fallback's (a zeroed page's 0, say), so either commit may be the
        /// later one.
        public let isCommitBefore: Bool?
        /// What is wrong with the meta page the copy overwrote, where LMDB does not take it for a meta page at all, as a
        /// clause ("one of its meta pages lacks LMDB's magic number"); `nil` where it is one, and what LMDB refused
        /// lies in what it records (a root, the last page) or in the pages only its commit reaches.
        public let replacedPageProblem: String?
    }

    /// Copies the data file at `source` to `destination`, a new file created exclusively with `mode`; `false` when it
    /// cannot, leaving no file. The source must not change meanwhile: no writer may have it open.
    public static func copy(from source: String, to destination: String, mode: mode_t = 0o600) -> Bool {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return false }
        defer { close(input) }
        var status = stat()
        guard fstat(input, &status) == 0 else { return false }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard output >= 0 else { return false }
        var copied = false
        defer {
            close(output)
            if !copied { unlink(destination) }
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var offset = 0
        while offset < Int(status.st_size) {
            let read = chunk.withUnsafeMutableBytes { pread(input, $0.baseAddress, $0.count, off_t(offset)) }
            guard read > 0, chunk.withUnsafeBytes({ write(all: UnsafeRawBufferPointer(rebasing: $0[0..<read]), to: output, at: offset) })
            else { return false }
            offset += read
        }
        copied = fsync(output) == 0
        return copied
    }

    /// Overwrites, in the data file at `path` (a copy: never a log's own file), the meta page LMDB would not fall back
    /// to with the fallback one, when the fallback records trees a reader can walk (``PageTreeCheck``); `nil`, the
    /// file unchanged, when there is no such page.
    public static func pointAtFallback(dataFile path: String) -> Made? {
        guard PageTreeCheck.fallbackProblem(inDataFile: path) == nil else { return nil }
        let descriptor = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        let metas = MetaPage.pages(of: descriptor)
        guard let (meta, replacing) = MetaPage.fallback(of: metas), let pageSize = meta.pageSize, Int(status.st_size) >= 2 * pageSize
        else { return nil }
        // The fallback page over the other, its page number (the first 8 bytes) that of the place it now holds.
        var page = [UInt8](repeating: 0, count: pageSize)
        guard page.withUnsafeMutableBytes({ pread(descriptor, $0.baseAddress, pageSize, off_t((1 - replacing) * pageSize)) }) == pageSize
        else { return nil }
        withUnsafeBytes(of: UInt64(replacing).littleEndian) { page.replaceSubrange(0..<8, with: $0) }
        guard page.withUnsafeBytes({ write(all: $0, to: descriptor, at: replacing * pageSize) }), fsync(descriptor) == 0 else { return nil }
        let replaced = metas[replacing]
        let problem: String? = if replaced.isValid {
            nil
        } else if replaced.isLMDB {
            "one of its meta pages gives version \(replaced.version), where LMDB's is 1"
        } else {
            "one of its meta pages lacks LMDB's magic number"
        }
        // A page LMDB takes for a meta page is compared by its id, as LMDB compares them; one it does not is believed
        // only where its id is next to the fallback's, as commits leave them (a bad bit elsewhere on it, its magic's
        // say): a zeroed page's id, 0, or a random one, says nothing of which commit was the later.
        let isCommitBefore: Bool? = if replaced.isValid || replaced.transaction == meta.transaction &+ 1 {
            meta.transaction < replaced.transaction
        } else if replaced.transaction &+ 1 == meta.transaction {
            false
        } else {
            nil
        }
        return Made(isCommitBefore: isCommitBefore, replacedPageProblem: problem)
    }

    /// Mends, in the data file at `path` (a copy: never a log's own file), each record a bad bit damaged where LMDB finds
    /// it (``PageTreeCheck/mendableRecords(inDataFile:databases:leavingOutPages:rootLeafKeySizes:)``, of the databases named `databases`): its flags,
    /// its value's size, its offset in its page, a named database's name; the records mended, empty when there were none
    /// or a write failed (the copy is then no use). With `leavingOutPages`, leaf pages damaged beyond mending are left out
    /// (and root leaves of the databases `rootLeafKeySizes` names).
    public static func mendRecords(
        dataFile path: String, databases: Set<String> = [], leavingOutPages: Bool = false, rootLeafKeySizes: [String: Int] = [:]
    ) -> [MendedRecord] {
        let records = PageTreeCheck.mendableRecords(
            inDataFile: path, databases: databases, leavingOutPages: leavingOutPages, rootLeafKeySizes: rootLeafKeySizes)
        guard !records.isEmpty else { return [] }
        let descriptor = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        for record in records {
            guard record.bytes.withUnsafeBytes({ write(all: $0, to: descriptor, at: record.fileOffset) }) else { return [] }
        }
        return fsync(descriptor) == 0 ? records : []
    }

    /// Writes all of `bytes` at `offset`; `false` when a write fails.
    private static func write(all bytes: UnsafeRawBufferPointer, to descriptor: Int32, at offset: Int) -> Bool {
        var done = 0
        while done < bytes.count {
            let written = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            guard written > 0 else {
                if written < 0 && errno == EINTR { continue }
                return false
            }
            done += written
        }
        return true
    }
}
