import Synchronization

/// Objects kept between uses, such as coders with their buffers, so that work done value after value (the log's
/// writer thread encoding, a replay decoding) does not allocate them afresh each time, nor lose what they
/// learned (a decoder's ``KnownKeys``). Threads that work at the same time each take an object, up to
/// ``capacity`` of them; one that finds none makes its own, which is kept afterwards if there is room.
@usableFromInline package final class Spare<Object: AnyObject>: Sendable {
    /// Lock discipline: an object inside is used only by the thread that took it out of `kept`, and it is given
    /// back only when that thread is done with it.
    private struct Kept: @unchecked Sendable {
        var objects: [Object] = []
    }

    /// How many objects are kept at most: enough for the threads of a parallel blame on a few cores, few enough
    /// that buffers grown by one large value are not held many times over.
    static var capacity: Int { 4 }

    private let kept = Mutex(Kept())

    /// Creates an empty spare.
    package init() {}

    /// A kept object, which the caller then owns, or `nil` when there is none.
    package func take() -> Object? {
        kept.withLock { $0.objects.popLast() }
    }

    /// Keeps `object`, readied for its next use, for a later ``take()``, unless ``capacity`` objects are kept.
    package func giveBack(_ object: Object) {
        kept.withLock { kept in
            if kept.objects.count < Self.capacity { kept.objects.append(object) }
        }
    }
}
