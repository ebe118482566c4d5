import Dispatch
import EventLogKit
import Foundation
import SystemPackage

/// A file the inspector writes (`export --out`, `pack --out`, `timeline --out`): created new and private, never through a symbolic
/// link, never replacing a file unless asked, and removed again if writing fails.
///
/// - Without `force`, an existing path is refused.
/// - With `force`, an existing regular file is replaced atomically (written beside it under a fresh
///   exclusive name, then renamed over it); a symbolic link or anything but a regular file is refused.
/// - The new file gets `mode` (the log's own permissions), so an export is no more readable than its log.
/// - Interrupted (Ctrl-C) or terminated before it is committed, the unfinished file is removed.
final class OutputFile {
    let path: String
    private let staging: String
    private let descriptor: FileDescriptor
    private var buffer: [UInt8] = []
    private var isOpen = true
    /// Removes the unfinished file on SIGINT and SIGTERM until the file is committed.
    private var interrupts: [any DispatchSourceSignal] = []

    /// Opens `path` for writing, staged beside it; `option` is the command's option that names the file (`--out`),
    /// which a refusal's hint names.
    init(path: String, force: Bool, mode: FilePermissions, option: String) throws {
        self.path = path
        var status = stat()
        if lstat(path, &status) == 0 {
            guard force else {
                throw InspectorFailure("\(path) already exists. Choose another \(option), or pass --force to replace it.", exit: .invalidArgument)
            }
            guard status.st_mode & S_IFMT == S_IFREG else {
                let what = status.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a regular file"
                throw InspectorFailure("\(path) is \(what); the inspector will not replace it. Choose another \(option).", exit: .invalidArgument)
            }
        }
        let file = SplitPath(path)
        var created: (String, FileDescriptor)?
        for _ in 0..<8 where created == nil {
            let candidate = file.sibling(".\(file.name).\(UInt64.random(in: 0...UInt64.max)).partial")
            // Watching for interrupts before the file exists, so that none finds it there unwatched.
            let handlers = Interrupts.handle { event in
                unlink(candidate)
                return "\(event); \(path) was not written."
            }
            do {
                let descriptor = try FileDescriptor.open(
                    FilePath(candidate), .writeOnly, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec],
                    permissions: mode)
                created = (candidate, descriptor)
                interrupts = handlers
            } catch Errno.fileExists {
                handlers.forEach { $0.cancel() }
                continue
            } catch {
                handlers.forEach { $0.cancel() }
                throw InspectorFailure("Cannot write \(path): \(error). Check that its directory exists and is writable.", exit: .writeFailed)
            }
        }
        guard let (staging, descriptor) = created else {
            throw InspectorFailure("Cannot write \(path): no private file name could be created beside it.", exit: .writeFailed)
        }
        self.staging = staging
        self.descriptor = descriptor
    }

    deinit {
        interrupts.forEach { $0.cancel() }
        // Not committed: leave nothing behind.
        if isOpen {
            try? descriptor.close()
            unlink(staging)
        }
    }

    /// Appends a line; written out in large blocks.
    func write(_ line: String) throws {
        try writeLine { $0.append(contentsOf: line.utf8) }
    }

    /// Appends the line `body` writes into the buffer (without the newline); written out in large blocks.
    func writeLine(_ body: (inout [UInt8]) -> Void) throws {
        body(&buffer)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Writes what is left, syncs, and puts the file in place (replacing the old one with `force`).
    func commit() throws {
        try flush()
        do {
            try descriptor.closeAfter {
                guard fsync(descriptor.rawValue) == 0 else { throw Errno(rawValue: errno) }
            }
        } catch {
            isOpen = false
            unlink(staging)
            throw Self.failure(error, path)
        }
        isOpen = false
        defer { interrupts.forEach { $0.cancel() } }
        guard rename(staging, path) == 0 else {
            let error = Errno(rawValue: errno)
            unlink(staging)
            throw Self.failure(error, path)
        }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        do {
            _ = try buffer.withUnsafeBytes { try descriptor.writeAll($0) }
            buffer.removeAll(keepingCapacity: true)
        } catch {
            throw Self.failure(error, path)
        }
    }

    private static func failure(_ error: any Error, _ path: String) -> InspectorFailure {
        if let errno = error as? Errno, errno == .noSpace {
            return InspectorFailure("Could not write \(path): the device is full (No space left on device). Free some space or write elsewhere.", exit: .writeFailed)
        }
        return InspectorFailure("Could not write \(path): \(error).", exit: .writeFailed)
    }
}
