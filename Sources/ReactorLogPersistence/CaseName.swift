import Foundation
import Synchronization

/// Names the cases of one type's values, checking once (on the first value) whether the type is an enum.
final class CaseNamer: Sendable {
    /// Whether the type is an enum: `unknown` until the first value, then `enumeration` or `other`.
    private let kind = Atomic<UInt8>(CaseNamer.unknown)
    private static let unknown: UInt8 = 0, enumeration: UInt8 = 1, other: UInt8 = 2

    /// Creates a namer that has seen no value yet.
    private init() {}

    /// The namer of `type`'s values, one for the process: a server's thousand sessions record the same types, and a
    /// namer each reflected a value once per session (13,000 instructions a session's recorder) and left the writer
    /// a namer per session to read, out of the cache, for every entry.
    static func shared<Value>(for type: Value.Type) -> CaseNamer {
        namers.withLock { namers in
            if let namer = namers[ObjectIdentifier(type)] { return namer }
            let namer = CaseNamer()
            namers[ObjectIdentifier(type)] = namer
            return namer
        }
    }

    /// The namers made so far, by type.
    private static let namers = Mutex<[ObjectIdentifier: CaseNamer]>([:])

    /// Whether the values named are known to be an enum's.
    private var isEnumeration: Bool { kind.load(ordering: .relaxed) == Self.enumeration }

    /// The case name of `value`, given the name its codec learned while encoding it, if any. Called on the log's
    /// writer thread for every entry: an atomic load once the kind is known, no lock and no `Any` box for `value`.
    /// An enum's learned name, what nearly every entry takes, is returned where this is called: the recorder runs
    /// unspecialized, and a call of the generic rest costs `Value`'s witnesses.
    @inline(__always) func name<Value>(_ value: Value, learned: String?) -> String {
        if let learned, isEnumeration { return learned }
        return reflectedName(value, learned: learned)
    }

    /// ``name(_:learned:)`` for the first value, a value of a type that is not an enum, or one whose codec learned no
    /// name.
    private func reflectedName<Value>(_ value: Value, learned: String?) -> String {
        var kind = kind.load(ordering: .relaxed)
        if kind == Self.unknown {
            // Threads that race here reflect the same type and store the same answer.
            kind = Mirror(reflecting: value).displayStyle == .enum ? Self.enumeration : Self.other
            self.kind.store(kind, ordering: .relaxed)
        }
        return kind == Self.enumeration ? learned ?? CaseName.of(value) : "\(type(of: value))"
    }
}

/// The case name of an action or mutation, for the log's listings: `updateQuery` for
/// `.updateQuery("swift")`, `loadNextPage` for `.loadNextPage`, the type name for a non-enum.
enum CaseName {
    /// The case name by reflection, for a value whose codec did not learn it while encoding.
    static func of(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .enum else { return "\(type(of: value))" }
        if let label = mirror.children.first?.label { return label }
        return String(describing: value)
    }
}
