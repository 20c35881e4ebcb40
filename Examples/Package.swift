// swift-tools-version: 6.1
// Examples for swift-promise, kept as a separate package so the library itself never depends
// on swift-argument-parser. It uses the library by path, the way an application would use it
// by URL.
//
//   make demo        # or: cd Examples && swift run promise-demo
//   make test        # runs MirrorKitTests too (make test-examples)

import Foundation
import PackageDescription

// A path dependency's identity is its directory's name ("swift-promise" in a fresh clone);
// work it out so the example builds whatever the checkout is called.
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

let settings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "swift-promise-examples",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        // NIOFileSystem, for NIOFileSystemCoexistenceTests only: the programs above do not use it.
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
    ],
    targets: [
        // The mirroring pipeline: all four adapters working together on one UVLoop.
        .target(
            name: "MirrorKit",
            dependencies: [
                .product(name: "PromiseCurl", package: root),
                .product(name: "PromiseFS", package: root),
                .product(name: "PromiseSQLite", package: root),
                .product(name: "PromiseUV", package: root),
            ],
            swiftSettings: settings
        ),
        .executableTarget(
            name: "promise-demo",
            dependencies: [
                "MirrorKit",
                .product(name: "PromiseCore", package: root),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: settings
        ),
        // The two programs of PromiseCore's "Command-line tools" article.
        .executableTarget(
            name: "promise-fetch",
            dependencies: [
                .product(name: "PromiseCurl", package: root),
                // `Promises.nextSignal`, for Ctrl-C.
                .product(name: "PromiseSignals", package: root),
            ],
            swiftSettings: settings
        ),
        .executableTarget(
            name: "promise-wait",
            dependencies: [
                .product(name: "PromiseCurl", package: root),
                .product(name: "PromiseUV", package: root),
            ],
            swiftSettings: settings
        ),
        .testTarget(
            name: "MirrorKitTests",
            dependencies: [
                "MirrorKit",
                "promise-demo",
                "promise-fetch",
                "promise-wait",
                .product(name: "PromiseSQLite", package: root),
                .product(name: "PromiseUV", package: root),
            ],
            swiftSettings: settings
        ),
        // PromiseFS and swift-nio's NIOFileSystem imported into one file, as a SwiftNIO server would:
        // it compiles only while no PromiseFS name collides with theirs.
        .testTarget(
            name: "NIOFileSystemCoexistenceTests",
            dependencies: [
                .product(name: "PromiseFS", package: root),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ],
            swiftSettings: settings
        ),
    ]
)
