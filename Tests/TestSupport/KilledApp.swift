import Foundation

/// A log as an app killed while recording leaves it: what it committed, without what a clean end writes (each
/// attached reactor's `closed` entry and last snapshot, written when the reactor is released or the log closes).
public enum KilledApp {
    /// Copies the log at `path`, whose appends the caller flushed, to a new log at `copy`: the log as the disk holds it
    /// if the app is killed now. The log at `path` may then be closed as usual.
    public static func copy(logAt path: String, to copy: String) throws {
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path + "/data.mdb", toPath: copy + "/data.mdb")
    }
}
