// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "ReactorLog",
    products: [
        .library(name: "ReactorLog", targets: ["ReactorLog"]),
        .library(name: "EventLogKit", targets: ["EventLogKit"]),
        .library(name: "TimeTravel", targets: ["TimeTravel"]),
        .library(name: "LMDB", targets: ["LMDB"]),
    ],
    targets: [
        // Debian's liblmdb, found with pkg-config; never vendored.
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        // A thin, safe Swift layer over LMDB. Knows nothing about logs or reactors.
        .target(name: "LMDB", dependencies: ["CLMDB"]),
        // The persistent action/mutation log. Knows Codable, not reactors.
        .target(name: "EventLogKit", dependencies: ["LMDB"]),
        // The reactor runtime: ReactorKit's semantics on Swift concurrency, persisted to the log.
        .target(name: "ReactorLog", dependencies: ["EventLogKit"]),
        // Time travel over a log: state at any step, diff, blame, bisect, divergence, schema checks.
        .target(name: "TimeTravel", dependencies: ["ReactorLog", "EventLogKit"]),
        // Example reactors (Counter, GitHub Search with an offline fake, Todo) for tests, demo and benchmark.
        .target(name: "ReactorLogExamples", dependencies: ["ReactorLog"]),
        // A child process for the crash tests: appends until it is killed.
        .executableTarget(
            name: "eventlog-crash-writer",
            dependencies: ["EventLogKit"],
            path: "Tools/CrashWriter"
        ),
        // Helpers shared by the test targets.
        .target(name: "TestSupport", dependencies: ["ReactorLog"], path: "Tests/TestSupport"),
        .testTarget(name: "LMDBTests", dependencies: ["LMDB", "TestSupport"]),
        .testTarget(
            name: "ReactorLogTests",
            dependencies: ["ReactorLog", "ReactorLogExamples", "EventLogKit", "TestSupport"]
        ),
        .testTarget(
            name: "TimeTravelTests",
            dependencies: ["TimeTravel", "ReactorLog", "ReactorLogExamples", "EventLogKit", "TestSupport"]
        ),
        .testTarget(
            name: "EventLogKitTests",
            dependencies: ["EventLogKit", "LMDB", "TestSupport", "eventlog-crash-writer"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
