// swift-tools-version: 6.1
// What PromiseCurl's requests and PromiseSQLite's statements cost with the Tracing and Metrics
// traits: Benchmarks/telemetry-counts.sh builds this package twice, with the traits off and on
// (PROMISE_TELEMETRY=off or on), and counts instructions and allocations per operation under
// valgrind. Its own package because a package names swift-promise once, with one set of traits.

import Foundation
import PackageDescription

let on = ProcessInfo.processInfo.environment["PROMISE_TELEMETRY"] != "off"

let package = Package(
    name: "swift-promise-telemetry-benchmarks",
    dependencies: [
        .package(name: "swift-promise", path: "../..", traits: on ? ["Curl", "Tracing", "Metrics"] : ["Curl"]),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    ],
    targets: [
        .executableTarget(
            name: "TelemetryCounts",
            dependencies: [
                .product(name: "PromiseCurl", package: "swift-promise"),
                .product(name: "PromiseSQLite", package: "swift-promise"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)] + (on ? [.define("TELEMETRY_ON")] : [])
        )
    ]
)
