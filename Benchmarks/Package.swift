// swift-tools-version: 6.0
import PackageDescription

// The benchmark, as a package of its own: a user who depends on ReactorLog never resolves GRDB, and the
// library's `swift test` never builds it. Run it from the repository root:
//   swift run -c release --package-path Benchmarks reactorlog-bench
let package = Package(
    name: "ReactorLogBenchmarks",
    dependencies: [
        .package(name: "ReactorLog", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // SQLite as most Swift developers would use it: the benchmark's peer.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // Where the log stands against the storage ceiling and what users would pick instead.
        .executableTarget(
            name: "reactorlog-bench",
            dependencies: [
                .product(name: "EventLogKit", package: "ReactorLog"),
                .product(name: "LMDB", package: "ReactorLog"),
                .product(name: "ReactorLog", package: "ReactorLog"),
                .product(name: "ReactorLogPersistence", package: "ReactorLog"),
                .product(name: "TimeTravel", package: "ReactorLog"),
                .product(name: "ReactorLogInspector", package: "ReactorLog"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // Keeps the executable working: a tiny run must report every section, and the probes must run.
        .testTarget(
            name: "BenchmarkSmokeTests",
            dependencies: ["reactorlog-bench", .product(name: "EventLogKit", package: "ReactorLog")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
