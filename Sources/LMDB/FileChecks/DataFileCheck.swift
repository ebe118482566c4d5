#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks an LMDB data file before LMDB maps it. LMDB trusts the file: a data file shorter than the pages its
/// meta page claims makes the first access past its end raise SIGBUS, which no Swift code can catch. This
/// reads the two meta pages with plain reads and says what is wrong, so that a damaged file (a truncated
/// download, a full disk, a foreign file) is refused with a sentence instead.
///
/// Pages 0 and 1 are meta pages; of those with LMDB's magic and version, each that LMDB may read the log from
/// (`MetaPage.readable(of:)`) must have a possible page size and claim no page past the file's end.
public enum DataFileCheck {
    /// What is wrong with a data file; each reason ends a sentence about the file ("is truncated: …").
    public enum Problem: Sendable, Equatable {
        /// No meta page carries LMDB's magic number: the file is something else.
        case notLMDB(String)
        /// An LMDB file whose meta pages are damaged or that is shorter than they say.
        case damaged(String)
    }

    /// What is wrong with the data file at `path`, or `nil` when it looks sound or does not exist.
    public static func problem(inDataFile path: String) -> Problem? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let metas = MetaPage.pages(of: descriptor)
        guard !metas.isEmpty else {
            return .notLMDB("is not an LMDB file (too short for a meta page)")
        }
        guard metas.contains(where: \.isLMDB) else {
            return .notLMDB("is not an LMDB file (no LMDB meta page)")
        }
        let readable = MetaPage.readable(of: metas)
        guard !readable.isEmpty else {
            return .damaged("has damaged meta pages (no valid version)")
        }
        // The size is read after the meta pages: a live writer writes a commit's pages before its meta page and
        // never shrinks the file, so a size read later covers every page the meta page read earlier claims.
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        let size = UInt64(status.st_size)
        // Every page LMDB may read the log from: two where a bad bit broke the transaction ids' parity (a hostile file
        // whose other page claims pages past the file's end would make LMDB crash the process with SIGBUS).
        for current in readable {
            guard let pageSize = current.pageSize else {
                return .damaged("has a damaged meta page: its page size is \(current.pageSizeField)")
            }
            let (needed, overflow) = (current.lastPage &+ 1).multipliedReportingOverflow(by: UInt64(pageSize))
            if overflow || current.lastPage >= UInt64.max / 2 {
                return .damaged("has a meta page claiming an impossible size (\(current.lastPage) pages)")
            }
            guard size >= needed, size >= 2 * UInt64(pageSize) else {
                return .damaged("is truncated: its meta page says it uses \(current.lastPage + 1) pages (\(needed) bytes), but the file holds \(size) bytes")
            }
        }
        return nil
    }
}
