// swift-tools-version: 6.1
// Examples for swift-promise, kept as a separate package so the library itself never depends
// on swift-argument-parser. It uses the library by path, the way an application would use it
// by URL.
//
//   make demo        # or: cd Examples && swift run promise-demo

import Foundation
import PackageDescription

// A path dependency's identity is its directory's name ("swift-promise" in a fresh clone);
// work it out so the example builds whatever the checkout is called.
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "swift-promise-examples",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        .executableTarget(
            name: "promise-demo",
            dependencies: [
                .product(name: "PromiseCore", package: root),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .enableUpcomingFeature("ExistentialAny"),
            ]
        )
    ]
)
