// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "ReactorLog",
    products: [
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
        .testTarget(name: "LMDBTests", dependencies: ["LMDB"]),
    ],
    swiftLanguageModes: [.v6]
)
