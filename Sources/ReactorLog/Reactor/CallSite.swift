/// Where an action was sent from: the file and line of the `send` call, filled in by the compiler. Recorders keep
/// it with the action (Redux DevTools' trace, for a recording), so a log shows which code sent what.
public struct CallSite: Sendable, CustomStringConvertible {
    /// The file, as `#fileID` spells it: `MyApp/CheckoutView.swift`.
    public let fileID: StaticString
    /// The line.
    public let line: UInt

    /// A call site; `Reactor.send` makes them.
    @inlinable public init(fileID: StaticString, line: UInt) {
        self.fileID = fileID
        self.line = line
    }

    /// `MyApp/CheckoutView.swift:42`.
    public var description: String { "\(fileID):\(line)" }
}
