// swift-tools-version: 6.1
// Fuzzing for swift-promise: libFuzzer targets for the code that reads outside input.
// A separate package, like Benchmarks/ and Examples/, so the library never builds a fuzzer.
//
//   make fuzz          # every target for FUZZ_SECONDS (20 s) each, part of `make test`
//   make soak          # the same targets for much longer
//   scripts/fuzz TARGET [SECONDS]
//
// The checks reach PromiseCurl's, PromiseSQLite's and PromiseFS's internal parsers with
// `@testable import`, so the library is built with `-enable-testing` (scripts/fuzz does that).

import Foundation
import PackageDescription

// A path dependency's identity is its directory's name ("swift-promise" in a fresh clone).
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

let settings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "swift-promise-fuzz",
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        // The properties each target checks; shared by the fuzzer binary and the replay tests.
        .target(
            name: "FuzzChecks",
            dependencies: [
                .product(name: "PromiseCore", package: root),
                .product(name: "PromiseCurl", package: root),
                .product(name: "PromiseSQLite", package: root),
                .product(name: "PromiseFS", package: root),
            ],
            swiftSettings: settings
        ),
        // One binary, every target: PROMISE_FUZZ_TARGET picks which one libFuzzer drives.
        // Built with -sanitize=fuzzer (and -DFUZZING) by scripts/fuzz; a plain build replays files.
        .executableTarget(
            name: "promise-fuzz",
            dependencies: ["FuzzChecks"],
            swiftSettings: settings
        ),
        // Replays Corpus/ and Regressions/ through the checks without the fuzzer.
        .testTarget(
            name: "FuzzChecksTests",
            dependencies: ["FuzzChecks"],
            swiftSettings: settings
        ),
    ]
)
