// swift-tools-version: 6.1
// Soak runs for swift-promise (issue 7): millions of promise chains, HTTP requests, SQLite
// operations and libuv timers in one process each, watching resident memory and open
// descriptors. Kept as a separate package, like Examples/ and Benchmarks/, so the library
// never depends on swift-argument-parser.
//
//   scripts/soak                                 # all four at full size, release build
//   SOAK_SCALE=0.1 scripts/soak                  # a tenth of each count
//   cd Soak && swift run -c release promise-soak core --count 100000

import Foundation
import PackageDescription

// A path dependency's identity is its directory's name ("swift-promise" in a fresh clone).
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "swift-promise-soak",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        .executableTarget(
            name: "promise-soak",
            dependencies: [
                .product(name: "PromiseCore", package: root),
                .product(name: "PromiseCurl", package: root),
                .product(name: "PromiseSQLite", package: root),
                .product(name: "PromiseUV", package: root),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "CSoakSupport",
            ],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .enableUpcomingFeature("ExistentialAny"),
            ]
        ),
        // glibc's mallinfo2 and malloc_trim, which the Glibc module does not export. C code
        // lives under Internal/, as in the library.
        .target(name: "CSoakSupport", path: "Sources/Internal/CSoakSupport"),
    ]
)
