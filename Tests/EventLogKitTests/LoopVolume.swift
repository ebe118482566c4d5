import Foundation
import TestSupport

/// A file system of 120 MiB in an image file, mounted through a loop device for one test and unmounted when it goes:
/// a disk a test can fill. btrfs copies on write; ext4 is made with no blocks kept for root, so that the tests, which
/// run as root, meet a full disk as other users do.
final class LoopVolume {
    /// The kinds of file system a volume can hold.
    enum FileSystem {
        case btrfs, ext4

        /// The tool and arguments that make it in an image file.
        fileprivate func make(_ image: String) -> (String, [String]) {
            switch self {
            case .btrfs: ("/usr/sbin/mkfs.btrfs", ["-q", "-f", image])
            case .ext4: ("/usr/sbin/mkfs.ext4", ["-q", "-F", "-m", "0", image])
            }
        }
    }

    /// Where the file system is mounted.
    let path: String

    /// Whether this machine can mount one: root, loop devices, btrfs in the kernel, `mkfs.btrfs` (btrfs-progs, which
    /// Tools/scripts/setup.sh installs for the tests) and `mkfs.ext4`, and a trial mount that works (a container may
    /// not allow it).
    static let canMount: Bool = {
        guard geteuid() == 0, access("/dev/loop-control", F_OK) == 0,
              [FileSystem.btrfs, .ext4].allSatisfy({ access($0.make("").0, X_OK) == 0 }),
              (try? String(contentsOfFile: "/proc/filesystems", encoding: .utf8))?.contains("\tbtrfs") == true else { return false }
        let scratch = ScratchDirectory()
        // Unmounted as the expression ends, before the scratch directory goes.
        return (try? LoopVolume(.btrfs, in: scratch)) != nil
    }()

    /// Makes the file system in `scratch` and mounts it.
    init(_ fileSystem: FileSystem, in scratch: ScratchDirectory) throws {
        let image = scratch.file("volume.img")
        path = scratch.file("volume")
        guard FileManager.default.createFile(atPath: image, contents: nil), truncate(image, 120 << 20) == 0 else {
            throw Failure("cannot make the image file \(image)")
        }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let (tool, arguments) = fileSystem.make(image)
        try Self.run(tool, arguments)
        try Self.run("/usr/bin/mount", ["-o", "loop", image, path])
    }

    /// Mounts the file system read-only, as Linux does with one whose disk reported errors.
    func remountReadOnly() throws {
        try Self.run("/usr/bin/mount", ["-o", "remount,ro", path])
    }

    deinit {
        try? Self.run("/usr/bin/umount", [path])
    }

    /// Writes the file `name` until the file system has `room` bytes left (or none); returns its path.
    func fill(leaving room: Int, name: String) throws -> String {
        let filler = path + "/" + name
        let descriptor = open(filler, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure("cannot make \(filler)") }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            sync()
            var status = statvfs()
            guard statvfs(path, &status) == 0 else { throw Failure("cannot read the room left on \(path)") }
            let left = Int(status.f_bavail) * Int(status.f_frsize)
            guard left > room else { return filler }
            let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, min(chunk.count, left - room)) }
            guard written > 0 else { return filler }
        }
    }

    /// Runs a system tool to its end; throws when it fails.
    private static func run(_ tool: String, _ arguments: [String]) throws {
        let exit = try ChildProcess(tool, arguments).waitForExit()
        guard !exit.signalled && exit.status == 0 else { throw Failure("\(tool) \(arguments.joined(separator: " ")) failed: \(exit)") }
    }

    /// Why the volume could not be made.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
