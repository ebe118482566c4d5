import ArgumentParser
import EventLogKit
import Foundation
import ReactorLog
import ReactorLogPersistence
import ReactorLogExamples
import ReactorLogInspector

/// `reactorlog demo`: records a session of the example reactors, with a planted state bug to bisect.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record a demo session of the example reactors (GitHub Search, Todo, Counter) into a new log.",
        discussion: """
            The GitHub Search session runs against an offline fake server with a planted bug: page 2 of "rx" says \
            the next page is 2 again, so scrolling loads it twice and repositories appear twice. Find it with \
            `reactorlog bisect`. With --actions N, records a long synthetic Counter session instead (for benchmarks \
            and crash tests).
            """)

    @Option(name: [.short, .long], help: "Where to write the log.")
    var out = "demo.reactorlog"

    @Option(name: .long, help: "Record N synthetic Counter actions (4 entries each) instead of the demo session.")
    var actions: Int?

    @Option(name: .long, help: "Durability: sync, grouped or nosync.")
    var durability: Durability = .grouped

    @Flag(name: .long, help: "Replace the log at --out if it exists.")
    var force = false

    func run() async throws {
        try await InspectorCommandSupport.run {
            if let actions, actions < 1 {
                throw InspectorCommandSupport.failure("--actions must be at least 1, not \(actions).", exit: .invalidArgument)
            }
            try prepare()
            var configuration = EventLogConfiguration(durability: durability)
            configuration.snapshotPolicy = actions == nil ? .every(mutations: 8) : .default
            let log = try EventLog.open(at: out, configuration: configuration)
            if let actions {
                try await recordSynthetic(log, actions: actions)
            } else {
                try await recordDemo(log)
            }
            try log.close()
            try printNextSteps()
        }
    }

    /// Refuses to overwrite anything but, with --force, a directory holding only a log that no process is
    /// writing; and then removes only the log's own files.
    private func prepare() throws {
        guard FileManager.default.fileExists(atPath: out) else { return }
        guard force else {
            throw InspectorCommandSupport.failure("\(out) already exists. Choose another --out, or pass --force to replace it.", exit: .invalidArgument)
        }
        let others = ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).filter { !EventLog.files.contains($0) }
        guard others.isEmpty else {
            throw InspectorCommandSupport.failure(
                "\(out) holds files that are not the log's (\(others.sorted().joined(separator: ", "))); demo --force replaces only a log. Move them, or choose another --out.",
                exit: .invalidArgument)
        }
        // Only a ReactorLog log is replaced: opening it proves it is one (unless it never began, its first open
        // refused for want of room: lock files only), and opening it for writing proves that no other process writes
        // it (that fails, naming the process).
        if FileManager.default.fileExists(atPath: out + "/data.mdb") { try EventLog.openReadOnly(at: out).close() }
        try EventLog.open(at: out).close()
        for file in EventLog.files {
            let path = out + "/" + file
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        }
    }

    private func recordDemo(_ log: EventLog) async throws {
        let typed = ["s", "sw", "swi"]
        let service = TypedAheadService(
            answering: FakeGitHubSearchService(latency: .milliseconds(30), pageCount: 4, stalePage: ("rx", 2)), typedAhead: Set(typed))
        do {
            let search = GitHubSearchReactor(service: service)
            try search.attach(to: log, stream: "search")
            for query in typed + ["swift"] { search.send(.updateQuery(query)) }
            _ = await search.waitFor { $0.repos.first == "swift/repo-1" }
            for pages in [20, 30] {
                search.send(.loadNextPage)
                _ = await search.waitFor { $0.repos.count == pages && !$0.isLoadingNextPage }
            }
            // A failing search: wait for its effect-error entry, so the next query does not cancel it first.
            let errorsFrom = try log.highestSequence() + 1
            search.send(.updateQuery("error"))
            try await log.flush()
            for try await _ in log.follow(EntryQuery(from: errorsFrom, limit: 1, kinds: [.effectError])) {}
            // The planted bug: page 2 of "rx" says the next page is 2, so it is loaded twice.
            search.send(.updateQuery("rx"))
            _ = await search.waitFor { $0.repos.first == "rx/repo-1" }
            for pages in [20, 30] {
                search.send(.loadNextPage)
                _ = await search.waitFor { $0.repos.count == pages && !$0.isLoadingNextPage }
            }
        }
        // Each stream closed before the next opens: the demo's entries are numbered the same in every recording.
        try await waitForClose(of: "search", in: log)
        do {
            let todo = TodoReactor()
            try todo.attach(to: log, stream: "todo")
            for title in ["Read the ReactorKit docs", "Port GitHub Search", "Record a session", "Bisect the bug", "Write a regression test"] {
                todo.send(.add(title))
            }
            todo.send(.toggle(id: 1))
            todo.send(.toggle(id: 2))
            todo.send(.edit(id: 4, title: "Bisect the duplicate repos"))
            todo.send(.move(from: 4, to: 0))
            todo.send(.delete(id: 3))
        }
        try await waitForClose(of: "todo", in: log)
        do {
            let counter = CounterReactor(delay: .milliseconds(20))
            try counter.attach(to: log, stream: "counter")
            for action in [CounterReactor.Action.increase, .increase, .increase, .decrease] {
                counter.send(action)
                _ = await counter.waitFor { !$0.isLoading }
            }
        }
        try await waitForClose(of: "counter", in: log)
        try await log.flush()
    }

    /// Waits until stream `name`'s closed marker is committed, for five seconds at most. A reactor's runtime
    /// records it when the reactor is released, which an effect finishing on another thread can make happen a moment
    /// after the reactor's last use here: closing the log before then would leave the stream without it (a busy
    /// machine showed this). The bound keeps a reactor that is never released from hanging the demo.
    private func waitForClose(of name: String, in log: EventLog) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { for try await _ in log.follow(EntryQuery(limit: 1, stream: name, kinds: [.streamClosed])) {} }
            group.addTask { try await Task.sleep(for: .seconds(5)) }
            try await group.next()
            group.cancelAll()
        }
    }

    private func recordSynthetic(_ log: EventLog, actions: Int) async throws {
        let start = ContinuousClock.now
        do {
            let counter = CounterReactor(delay: .zero)
            try counter.attach(to: log, stream: "counter")
            for index in 0..<actions {
                counter.send(index % 3 == 2 ? .decrease : .increase)
                if index % 100_000 == 0 { InspectorCommandSupport.showProgress("demo: \(index) of \(actions) actions") }
            }
        }
        try await waitForClose(of: "counter", in: log)
        try await log.flush()
        InspectorCommandSupport.endProgress()
        let elapsed = (ContinuousClock.now - start).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        let entries = try log.highestSequence()
        FileHandle.standardError.write(Data("demo: \(entries) entries in \(String(format: "%.2f", seconds)) s\n".utf8))
    }

    /// What to try next: on the demo session, the tour; on a synthetic one, commands about its counter stream.
    private func printNextSteps() throws {
        let commands = actions != nil ? [
            "info \(out)", "tail \(out)", "blame \(out) value --from 1 --to 1000", "timeline \(out) --out counter.timeline.html",
        ] : [
            "info \(out)", "log \(out) --stream search", "state \(out) --stream search --at 29 --path repos.count",
            "blame \(out) nextPage --stream search",
            "bisect \(out) --stream search --run 'python3 Tools/scripts/unique-repos.py'",
            "timeline \(out) --stream search --out search.timeline.html",
        ]
        // A line at a time: a line written is one line, its newlines shown as text.
        try InspectorCommandSupport.writeLine("Recorded \(out). Try:")
        for command in commands { try InspectorCommandSupport.writeLine("  reactorlog " + command) }
    }
}

/// The demo's server, on which a search for a query the user typed past never answers: the next keystroke
/// cancels it, however long a busy machine takes to send that keystroke. With the fake's 30 ms alone, a
/// stall between two keystrokes let a superseded search answer, and the session had a step more than the
/// steps the README and the tests name.
private struct TypedAheadService: GitHubSearchService {
    let answering: FakeGitHubSearchService
    let typedAhead: Set<String>

    func search(query: String, page: Int) async throws -> (repos: [String], nextPage: Int?) {
        if typedAhead.contains(query) {
            try await Task.sleep(for: .seconds(3600))
        }
        return try await answering.search(query: query, page: page)
    }
}

extension Reactor {
    /// Waits until a published state satisfies `predicate`.
    func waitFor(_ predicate: @Sendable (State) -> Bool) async -> State? {
        for await state in states where predicate(state) { return state }
        return nil
    }
}
