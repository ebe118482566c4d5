// One app in two releases, built from this file twice (`cart-app-1` with RELEASE1, `cart-app-2` without): the
// schema-migration tests record with release 1, then upgrade the same log with release 2, as a user's device does.
//
//     cart-app-N LOG TITLE...   adds each title to the cart recorded in LOG, then prints the state as JSON.
import EventLogKit
import Foundation
import ReactorLog
import ReactorLogPersistence

#if RELEASE1
/// Release 1: a line is its title.
final class Cart: Reactor {
    enum Action: Codable, Sendable { case add(String) }
    enum Mutation: Codable, Sendable { case appendLine(String) }
    struct State: Codable, Sendable { var lines: [String] = [] }
    let initialState = State()
    let runtime = Runtime()
    func mutate(action: Action) -> Effect {
        switch action { case .add(let title): .just(.appendLine(title)) }
    }
    func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation { case .appendLine(let title): state.lines.append(title) }
        return state
    }
    static func add(_ title: String) -> Action { .add(title) }
    static let migrations = SchemaMigrations<Cart>()
}
#else
/// Release 2: a line has a quantity, the mutation case is renamed, and the state has a required currency.
final class Cart: Reactor {
    struct Line: Codable, Sendable { var title: String; var quantity: Int }
    enum Action: Codable, Sendable { case add(String, quantity: Int) }
    enum Mutation: Codable, Sendable { case addLine(Line) }
    struct State: Codable, Sendable { var lines: [Line] = []; var currency = "EUR" }
    let initialState = State()
    let runtime = Runtime()
    func mutate(action: Action) -> Effect {
        switch action { case .add(let title, let quantity): .just(.addLine(Line(title: title, quantity: quantity))) }
    }
    func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation { case .addLine(let line): state.lines.append(line) }
        return state
    }
    static func add(_ title: String) -> Action { .add(title, quantity: 1) }

    /// Release 1's types, declared again under other names: the fingerprint follows their structure only.
    enum Release1: ReactorSchema {
        enum Action: Codable, Sendable { case add(String) }
        enum Mutation: Codable, Sendable { case appendLine(String) }
        struct State: Codable, Sendable { var lines: [String] = [] }
    }

    static let migrations = SchemaMigrations<Cart>().from(
        Release1.self,
        mutation: { old in switch old { case .appendLine(let title): .addLine(Line(title: title, quantity: 1)) } },
        state: { old in State(lines: old.lines.map { Line(title: $0, quantity: 1) }, currency: "EUR") })
}
#endif

let arguments = CommandLine.arguments.dropFirst()
guard let path = arguments.first else {
    FileHandle.standardError.write(Data("usage: cart-app-N LOG TITLE...\n".utf8))
    exit(2)
}
do {
    let log = try EventLog.open(at: path)
    let state: Cart.State
    do {
        let cart = Cart()
        if let change = try cart.attach(to: log, stream: "cart", migrations: Cart.migrations) {
            FileHandle.standardError.write(Data("\(change)\n".utf8))
        }
        for title in arguments.dropFirst() { cart.send(Cart.add(title)) }
        state = cart.currentState
    }
    // The cart is released: its stream is closed with a last snapshot.
    try log.close()
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    print(String(decoding: try encoder.encode(state), as: UTF8.self))
} catch {
    FileHandle.standardError.write(Data("cart-app: \(error)\n".utf8))
    exit(1)
}
