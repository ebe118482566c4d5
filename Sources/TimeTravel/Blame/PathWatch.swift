import EventLogKit
import Foundation

/// The value at one path of a state, followed step by step, as blame does.
///
/// When the replayer encodes what lies on the path (``Replayer/pathEncoding(_:at:)``), a step that leaves those
/// bytes alone costs one comparison; only one that changes them is rendered as JSON and compared as a value.
///
/// A class, so that its methods find its type through the instance: a generic struct's would look it up at each step.
final class PathWatch<R: Replayer> {
    let replayer: R
    let path: StatePath
    /// The value at the path in the state seen last; `nil` when it has none.
    private(set) var value: JSONValue?
    private var encoding: Data?

    init(_ path: StatePath, of state: R.State, replayer: R) throws {
        self.replayer = replayer
        self.path = path
        encoding = try replayer.pathEncoding(state, at: path)
        value = try json(state, encoding)
    }

    /// Whether `state`, the next step, has another value at the path; it becomes ``value``.
    func changed(in state: R.State) throws -> Bool {
        let next = try replayer.pathEncoding(state, at: path)
        if let next {
            guard next != encoding else { return false }
            encoding = next
        }
        let nextValue = try json(state, next)
        defer { value = nextValue }
        return nextValue != value
    }

    private func json(_ state: R.State, _ encoding: Data?) throws -> JSONValue? {
        guard let encoding else { return try replayer.json(state, at: path) }
        return try JSONValue(binary: encoding, at: path)
    }
}
