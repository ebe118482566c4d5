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
/// The layout (LMDB 0.9, 64-bit): pages 0 and 1 are meta pages; after a 16-byte page header, each holds the
/// magic `0xBEEFC0DE` and version 1, the page size (the free database's `md_pad`, byte 40), the last page
/// used (`mm_last_pg`, byte 136) and the transaction id (`mm_txnid`, byte 144). The meta page with the
/// higher transaction id is current.
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
        guard let first = meta(descriptor, at: 0) else {
            return .notLMDB("is not an LMDB file (too short for a meta page)")
        }
        let second = first.pageSize.map { meta(descriptor, at: UInt64($0)) } ?? nil
        let metas = [first, second].compactMap { $0 }
        guard metas.contains(where: { $0.magic == 0xBEEF_C0DE }) else {
            return .notLMDB("is not an LMDB file (no LMDB meta page)")
        }
        guard let current = metas.filter(\.isValid).max(by: { $0.transaction < $1.transaction }), let pageSize = current.pageSize else {
            return .damaged("has damaged meta pages (no valid version and page size)")
        }
        // The size is read after the meta pages: a live writer writes a commit's pages before its meta page and
        // never shrinks the file, so a size read later covers every page the meta page read earlier claims.
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        let size = UInt64(status.st_size)
        let (needed, overflow) = (current.lastPage &+ 1).multipliedReportingOverflow(by: UInt64(pageSize))
        if overflow || current.lastPage >= UInt64.max / 2 {
            return .damaged("has a meta page claiming an impossible size (\(current.lastPage) pages)")
        }
        guard size >= needed, size >= 2 * UInt64(pageSize) else {
            return .damaged("is truncated: its meta page says it uses \(current.lastPage + 1) pages (\(needed) bytes), but the file holds \(size) bytes")
        }
        return nil
    }

    private struct Meta {
        let magic: UInt32
        let version: UInt32
        let pageSize: UInt32?
        let lastPage: UInt64
        let transaction: UInt64

        var isValid: Bool { magic == 0xBEEF_C0DE && version == 1 && pageSize != nil }
    }

    private static func meta(_ descriptor: Int32, at offset: UInt64) -> Meta? {
        var bytes = [UInt8](repeating: 0, count: 152)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 152, off_t(offset)) }
        guard count == 152 else { return nil }
        func integer<T: FixedWidthInteger>(_ at: Int, _: T.Type) -> T {
            bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: T.self)) }
        }
        let pageSize = integer(40, UInt32.self)
        let plausible = pageSize >= 512 && pageSize <= 65_536 && pageSize.nonzeroBitCount == 1
        return Meta(
            magic: integer(16, UInt32.self), version: integer(20, UInt32.self), pageSize: plausible ? pageSize : nil,
            lastPage: integer(136, UInt64.self), transaction: integer(144, UInt64.self))
    }
}
