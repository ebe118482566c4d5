// swift-tools-version: 6.0
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "ReactorLog",
    products: [
        .library(name: "ReactorLog", targets: ["ReactorLog"]),
        .library(name: "ReactorLogPersistence", targets: ["ReactorLogPersistence"]),
        .library(name: "ReactorLogTesting", targets: ["ReactorLogTesting"]),
        .library(name: "EventLogKit", targets: ["EventLogKit"]),
        .library(name: "BinaryPayloadKit", targets: ["BinaryPayloadKit"]),
        .library(name: "BinaryPayloadMacros", targets: ["BinaryPayloadMacros"]),
        .library(name: "TimeTravel", targets: ["TimeTravel"]),
        .library(name: "ReactorLogInspector", targets: ["ReactorLogInspector"]),
        .executable(name: "reactorlog", targets: ["reactorlog"]),
        .library(name: "LMDB", targets: ["LMDB"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // The test store's failures (Swift Testing and XCTest alike) and diffs; test clocks for its users.
        .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
        .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        // The @BinaryPayloadCoding macro's compiler plugin. Only the BinaryPayloadMacros product needs it: SwiftPM
        // resolves it for every package that depends on ReactorLog, and builds it only for one that uses the macro.
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.0"..<"700.0.0"),
    ],
    targets: [
        // Debian's liblmdb, found with pkg-config; never vendored.
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),
        // A thin, safe Swift layer over LMDB. Knows nothing about logs or reactors.
        .target(name: "LMDB", dependencies: ["CLMDB"]),
        // CRC-32C with the processor's instruction where it has one; EventLogKit falls back to tables elsewhere.
        .target(name: "CCRC32C"),
        // The binary payload format and hand-written coding in it: what a model module imports to conform its
        // types, linking no LMDB. Knows Codable, not logs.
        .target(name: "BinaryPayloadKit"),
        // @BinaryPayloadCoding: writes a type's BinaryPayloadCodable conformance at compile time, the bytes its
        // synthesized Codable conformance writes. Re-exports BinaryPayloadKit.
        .target(name: "BinaryPayloadMacros", dependencies: ["BinaryPayloadKit", "BinaryPayloadMacrosPlugin"]),
        .macro(
            name: "BinaryPayloadMacrosPlugin",
            dependencies: [
                .product(name: "SwiftBasicFormat", package: "swift-syntax"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ]
        ),
        // The persistent action/mutation log. Knows Codable, not reactors; re-exports BinaryPayloadKit. Splits paths
        // with swift-system's FilePath: Foundation's `deletingLastPathComponent` traps on a one-character path.
        .target(
            name: "EventLogKit",
            dependencies: ["LMDB", "BinaryPayloadKit", "CCRC32C", .product(name: "SystemPackage", package: "swift-system")]),
        // The reactor runtime: ReactorKit's semantics on Swift concurrency. Knows a recorder protocol, not LMDB;
        // the payload format only so that `Pulse`, a piece of state, writes itself in it.
        .target(
            name: "ReactorLog",
            dependencies: [
                "BinaryPayloadKit",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ]
        ),
        // Testing support: the test store and an in-memory recorder.
        .target(
            name: "ReactorLogTesting",
            dependencies: [
                "ReactorLog",
                .product(name: "CustomDump", package: "swift-custom-dump"),
                .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
                // Lets failures reach Swift Testing and XCTest on Linux, with nothing for users to add.
                .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
            ]
        ),
        // The log binding: records a reactor in a stream of an EventLog, and resumes it.
        .target(name: "ReactorLogPersistence", dependencies: ["ReactorLog", "EventLogKit"]),
        // Time travel over a log: state at any step, diff, blame, bisect, divergence, schema checks.
        .target(name: "TimeTravel", dependencies: ["ReactorLog", "ReactorLogPersistence", "EventLogKit", "BinaryPayloadKit"]),
        // The inspector's command tree, for the shipped `reactorlog` and for users' own inspectors.
        .target(
            name: "ReactorLogInspector",
            dependencies: [
                "TimeTravel", "ReactorLog", "ReactorLogPersistence", "EventLogKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // The shipped inspector: knows the example reactors.
        .executableTarget(
            name: "reactorlog",
            dependencies: [
                "ReactorLogInspector", "ReactorLogExamples", "ReactorLog", "ReactorLogPersistence", "EventLogKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/Inspector"
        ),
        // How a user builds an inspector for their own reactors (compiled by the tests).
        .executableTarget(
            name: "example-inspector",
            dependencies: ["ReactorLogInspector", "ReactorLogExamples"],
            path: "Tools/ExampleInspector"
        ),
        // Example reactors (Counter, GitHub Search with an offline fake, Todo) for tests, demo and benchmark.
        .target(name: "ReactorLogExamples", dependencies: ["ReactorLog", "BinaryPayloadKit"]),
        // A child process for the crash tests: appends until it is killed.
        .executableTarget(
            name: "eventlog-crash-writer",
            dependencies: ["EventLogKit", "ReactorLog", "ReactorLogPersistence"],
            path: "Tools/CrashWriter"
        ),
        // Feeds the decoders a log from elsewhere reaches with mutated inputs: a short run in the tests, libFuzzer on
        // demand (Tools/scripts/fuzz.sh).
        .executableTarget(
            name: "reactorlog-fuzz",
            dependencies: ["BinaryPayloadKit", "BinaryPayloadFixtures", "EventLogKit", "TimeTravel", "ReactorLogInspector"],
            path: "Tools/Fuzz"
        ),
        // Hand-written binary conformances checked against Codable in a release build (the README's test command
        // builds and runs it): the suite runs debug code, and the writer's inlined containers have come out wrong in
        // release builds only.
        .executableTarget(
            name: "binary-payload-check",
            dependencies: ["BinaryPayloadKit", "BinaryPayloadFixtures"],
            path: "Tools/BinaryPayloadCheck"
        ),
        // Values with hand-written binary conformances, for the tests, the release check above and the fuzz target.
        .target(name: "BinaryPayloadFixtures", dependencies: ["BinaryPayloadKit"], path: "Tests/BinaryPayloadFixtures"),
        // One app in two releases whose types differ, built from one file (Tools/CartApp/CartApp.swift): the
        // schema-migration tests record with the first and upgrade the log with the second.
        .executableTarget(
            name: "cart-app-1",
            dependencies: ["ReactorLogPersistence", "EventLogKit", "ReactorLog"],
            path: "Tools/CartApp/Release1",
            swiftSettings: [.define("RELEASE1")]
        ),
        .executableTarget(
            name: "cart-app-2",
            dependencies: ["ReactorLogPersistence", "EventLogKit", "ReactorLog"],
            path: "Tools/CartApp/Release2"
        ),
        // Helpers shared by the test targets.
        .target(name: "TestSupport", dependencies: ["ReactorLog", "LMDB"], path: "Tests/TestSupport"),
        .testTarget(name: "LMDBTests", dependencies: ["LMDB", "TestSupport"]),
        .testTarget(
            name: "ReactorLogTests",
            dependencies: [
                "ReactorLog", "ReactorLogPersistence", "ReactorLogTesting", "ReactorLogExamples", "BinaryPayloadKit", "EventLogKit", "TimeTravel",
                "ReactorLogInspector", "TestSupport",
                .product(name: "Clocks", package: "swift-clocks"),
            ]
        ),
        .testTarget(
            name: "TimeTravelTests",
            dependencies: ["TimeTravel", "ReactorLog", "ReactorLogPersistence", "ReactorLogExamples", "EventLogKit", "LMDB", "TestSupport"]
        ),
        .testTarget(
            name: "InspectorTests",
            dependencies: ["EventLogKit", "LMDB", "TestSupport", "ReactorLogInspector", "reactorlog", "example-inspector", "eventlog-crash-writer", "reactorlog-fuzz", "cart-app-1", "cart-app-2"]
        ),
        .testTarget(
            name: "BinaryPayloadMacrosTests",
            dependencies: [
                "BinaryPayloadMacros", "BinaryPayloadMacrosPlugin", "ReactorLog", "TestSupport",
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ]
        ),
        .testTarget(
            name: "EventLogKitTests",
            dependencies: ["BinaryPayloadKit", "BinaryPayloadFixtures", "EventLogKit", "LMDB", "TestSupport", "eventlog-crash-writer"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The DocC plugin only builds the documentation catalogs (Tools/scripts/docs.sh sets REACTORLOG_DOCS), so a package
// that depends on ReactorLog never resolves it.
if Context.environment["REACTORLOG_DOCS"] != nil {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
