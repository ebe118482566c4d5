import EventLogKit
import ReactorLog
import ReactorLogPersistence
import TimeTravel

/// A reactor type the inspector knows, so that it can rebuild any state of that reactor's streams with
/// its own `reduce`. Streams of other reactors get the generic inspector: states where the log recorded them.
///
/// ```swift
/// await ReactorLogInspector.main(reactors: [
///     .reactor(GitHubSearchReactor.self) { GitHubSearchReactor() },
/// ])
/// ```
public struct ReactorRegistration: Sendable {
    /// The reactor type's name as streams record it (`String(reflecting:)`).
    public let typeName: String
    let makeMachine: @Sendable (EventLog, String) throws -> any InspectableMachine

    /// Registers reactor type `type`, made by `make` (its runtime never starts: only `reduce` runs). Give the
    /// `migrations` the app passes to `attach`, so that streams its earlier releases wrote replay too.
    public static func reactor<R: Reactor>(
        _ type: R.Type, migrations: SchemaMigrations<R> = SchemaMigrations(), _ make: @escaping @Sendable () -> R
    ) -> ReactorRegistration where R.Action: Codable, R.Mutation: Codable, R.State: Codable {
        ReactorRegistration(typeName: String(reflecting: type)) { log, stream in
            try TimeMachine(log: log, stream: stream, replayer: ReactorReplayer(migrations: migrations, make))
        }
    }
}
