import Synchronization

/// One object kept between uses, such as a coder with its buffers, so that work done value after value (the
/// log's writer thread encoding, a replay decoding) does not allocate them afresh each time. Threads that work at
/// the same time each get an object: one that finds the spare taken makes its own.
final class Spare<Object: AnyObject>: Sendable {
    /// Lock discipline: the object inside is used only by the thread that took it out of `kept`, and it is given
    /// back only when that thread is done with it.
    private struct Kept: @unchecked Sendable {
        let object: Object
    }

    private let kept = Mutex<Kept?>(nil)

    /// Creates an empty spare.
    init() {}

    /// The kept object, which the caller then owns, or `nil` when there is none.
    func take() -> Object? {
        kept.withLock { kept in
            defer { kept = nil }
            return kept?.object
        }
    }

    /// Keeps `object`, readied for its next use, for the next ``take()``.
    func giveBack(_ object: Object) {
        let kept = Kept(object: object)
        self.kept.withLock { $0 = kept }
    }
}
