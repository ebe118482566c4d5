import Foundation

/// Timestamps for ``Pipeline/debug(_:print:)`` lines, in RxSwift's `debug()` format.
enum DebugClock {
    static func now() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        return formatter.string(from: Date())
    }
}
