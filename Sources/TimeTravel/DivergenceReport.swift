import EventLogKit

/// What ``TimeMachine/divergenceReport(from:through:)`` found in a log that damage may leave partly unchecked: the
/// first divergence among the recorded states it could compare, and the stretches it could not.
public struct DivergenceReport: Sendable, Hashable {
    /// Steps whose recorded states could not be compared with replay, and why.
    public struct Unchecked: Sendable, Hashable {
        /// Why steps could not be checked.
        public enum Reason: Sendable, Hashable {
            /// Damage: the log's `corruptEntry`, `corruptSnapshot` or `corruptKeys`, the first met there.
            case damage(EventLogError)
            /// A mutation the log holds without its value, which no reducer replays: the
            /// ``TimeTravelError/valueNotRecorded(step:stream:mutation:missing:readableFrom:)`` replay met. No damage.
            case valueNotRecorded(TimeTravelError)
        }

        /// The steps: a stretch that cannot be replayed (from the stream's first entry after the state compared before
        /// it, where its index can tell, through the recorded state replay restarts from, or the last one unknown), or
        /// one recorded state whose snapshot cannot be read.
        public let steps: ClosedRange<UInt64>
        /// Why.
        public let reason: Reason

        /// The damage met, `nil` for a value the log does not hold, which is no damage.
        public var damage: EventLogError? {
            if case .damage(let damage) = reason { damage } else { nil }
        }
    }

    /// The first recorded state replay does not reproduce, `nil` when it reproduces every one it could compare.
    public let divergence: Divergence?
    /// The stretches not checked, in order, up to ``divergence`` (or through the range's end); empty in a sound log
    /// whose every mutation has its value.
    public let unchecked: [Unchecked]
    /// How many recorded states (snapshots after the range's start) replay was compared with, through ``divergence``
    /// or the range's end: 0 where the stream recorded none there (a short session under the default policy of a
    /// snapshot every 256 mutations, ``uncompared``), or where those it recorded could not be checked (``unchecked``).
    public let compared: Int
    /// Where the stream recorded no state after the range's start (no snapshot in it) but has mutations there, so that
    /// nothing was checked: from its start through the stream's last step in it. `nil` where it recorded one, or the
    /// range holds no mutation (replay had nothing to do).
    public let uncompared: ClosedRange<UInt64>?
}

extension DivergenceReport: CustomStringConvertible {
    /// The answer, as the inspector's `divergence` gives it: `Replay reproduces every recorded state.`, the divergence
    /// (``Divergence/description``), or `Replay reproduces every recorded state it could check; #15…#32 could not be
    /// checked.`; the steps left unchecked follow a divergence on a line of their own.
    public var description: String {
        let named = unchecked.map { $0.steps.count == 1 ? "#\($0.steps.lowerBound)" : "#\($0.steps.lowerBound)…#\($0.steps.upperBound)" }
            .joined(separator: ", ")
        if let uncompared, unchecked.isEmpty {
            return "No state recorded after #\(uncompared.lowerBound) through #\(uncompared.upperBound) to compare replay with: nothing was checked."
        }
        switch (divergence, unchecked.isEmpty) {
        case (let divergence?, true): return divergence.description
        case (let divergence?, false): return divergence.description + "\n\(named) could not be checked."
        case (nil, true): return "Replay reproduces every recorded state."
        case (nil, false): return "Replay reproduces every recorded state it could check; \(named) could not be checked."
        }
    }
}
