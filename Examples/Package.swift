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
    // LinkNotes is a product only so that Benchmarks/ can serve it (Benchmarks/route-ratios.sh).
    products: [.library(name: "LinkNotes", targets: ["LinkNotes"])],
    dependencies: [
        // PromiseNIO (the NIO trait) for the LinkNotes server; Curl is the default trait, named
        // again because a traits list replaces the defaults.
        .package(path: "..", traits: ["Curl", "NIO"]),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        // NIOFileSystem, for NIOFileSystemCoexistenceTests only: the programs above do not use it.
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        // The LinkNotes server (a Hummingbird 2 application) and its tests.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        // LinkNotesTests' quiet server logger (Hummingbird resolves swift-log anyway).
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
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
        // A Hummingbird 2 server whose routes answer from PromiseSQLite and PromiseCurl, their
        // chains on the request's event loop (PromiseNIO).
        .target(
            name: "LinkNotes",
            dependencies: [
                .product(name: "PromiseCurl", package: root),
                .product(name: "PromiseNIO", package: root),
                .product(name: "PromiseSQLite", package: root),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: settings
        ),
        .executableTarget(
            name: "promise-link-notes",
            dependencies: ["LinkNotes", .product(name: "Hummingbird", package: "hummingbird")],
            swiftSettings: settings
        ),
        .testTarget(
            name: "LinkNotesTests",
            dependencies: [
                "LinkNotes",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
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
