// swift-tools-version: 6.1
// The swift-promise package: a small promise core plus opt-in adapter products.
// See Podlike.md for how the products are meant to be combined.

import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// What the adapters and PromiseSystem need for spans and metrics, each only with its trait on.
let telemetryProducts: [Target.Dependency] = [
    .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
    .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
]

let package = Package(
    name: "swift-promise",
    products: [
        .library(name: "PromiseCore", targets: ["PromiseCore"]),
        .library(name: "PromiseTesting", targets: ["PromiseTesting"]),
        .library(name: "PromiseFS", targets: ["PromiseFS"]),
        .library(name: "PromiseSignals", targets: ["PromiseSignals"]),
        .library(name: "PromiseSQLite", targets: ["PromiseSQLite"]),
        .library(name: "PromiseUV", targets: ["PromiseUV"]),
        .library(name: "PromiseCurl", targets: ["PromiseCurl"]),
        .library(name: "PromiseCurlTesting", targets: ["PromiseCurlTesting"]),
        // Opt-in integrations with server-side Swift packages; nothing else depends on them.
        // Each is empty unless its trait (below) is enabled.
        .library(name: "PromiseLogging", targets: ["PromiseLogging"]),
        .library(name: "PromiseServiceLifecycle", targets: ["PromiseServiceLifecycle"]),
        .library(name: "PromiseNIO", targets: ["PromiseNIO"]),
    ],
    // SwiftPM resolves and clones every package that a target of this package names, whichever
    // products a dependent uses, unless every target dependency on it is conditional on a trait
    // that is off. So each third-party package sits behind a trait: a dependent resolves only
    // the packages of the traits it has on (scripts/check-resolution checks the table in
    // Podlike.md). Curl is on by default, so the usual `.package(url: …, from: …)` line gives
    // PromiseCurl and resolves swift-http-types alone; `traits: []` resolves nothing, for a
    // program that uses PromiseCore, PromiseFS, PromiseSignals, PromiseSQLite or PromiseUV only. Logging,
    // ServiceLifecycle and NIO are off by default: `traits: ["Curl", "Logging"]` turns one on (naming
    // traits replaces the default set). Tracing and Metrics, off by default too, add spans and metrics
    // to PromiseCurl, PromiseSQLite and PromiseUV; off, none of their code is compiled. `make test`
    // builds with all of them.
    traits: [
        .trait(
            name: "Curl",
            description: "The PromiseCurl and PromiseCurlTesting products: the swift-http-types package they need."
        ),
        .trait(name: "Logging", description: "The PromiseLogging product: diagnostics to a swift-log Logger."),
        .trait(
            name: "ServiceLifecycle",
            description: "The PromiseServiceLifecycle product: resources as swift-service-lifecycle services."
        ),
        .trait(
            name: "NIO",
            description: "The PromiseNIO product: promises and EventLoopFutures, and an EventLoop as an execution context."
        ),
        .trait(
            name: "Tracing",
            description:
                "swift-distributed-tracing spans for PromiseCurl's requests, PromiseSQLite's statements and transactions, and PromiseUV's child processes."
        ),
        .trait(
            name: "Metrics",
            description: "swift-metrics counters and timers for PromiseCurl's requests, PromiseSQLite's statements and PromiseUV's child processes."
        ),
        .default(enabledTraits: ["Curl"]),
    ],
    dependencies: [
        // Only for `make docs` (the generate-documentation command plugin). No target depends
        // on it, so nothing that depends on this package builds or links it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // PromiseCurl's request and response heads (HTTPRequest, HTTPResponse, HTTPFields),
        // behind the Curl trait.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // Only for PromiseCoreTests' model-based property test (generators, shrinking, seeds).
        // No library product depends on it, so dependents never resolve it (nor the plugin above).
        .package(url: "https://github.com/x-sheep/swift-property-based", exact: "2.0.1"),
        // Only for the PromiseLogging product (and its tests' InMemoryLogging), behind the
        // Logging trait.
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // Only for the PromiseServiceLifecycle product, behind the ServiceLifecycle trait.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        // Only for the PromiseNIO product (NIOCore) and its tests (NIOPosix's event loops),
        // behind the NIO trait.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        // The adapters' spans (and the tests' InMemoryTracing), behind the Tracing trait.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.0"),
        // The adapters' counters and timers (and the tests' MetricsTestKit), behind the Metrics trait.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    ],
    targets: [
        // The POSIX and threading plumbing the adapters share (named threads, the atomic file
        // replace, path rules, errno text, a FIFO, and PromiseBasics, which it re-exports). Not a
        // product, `package` access only, and it links no C library beyond the C runtime.
        // What PromiseCore itself needs of the system (Duration conversions, the standard error
        // writer) and the one EINTR-aware system-call layer every product goes through, apart
        // from PromiseSystem so that a program using PromiseCore alone does not link the
        // adapters' plumbing.
        .target(name: "PromiseBasics", swiftSettings: strictSettings),
        // Its Telemetry (spans and metrics, one mechanism for every adapter) exists only with the
        // Tracing or Metrics trait on.
        .target(name: "PromiseSystem", dependencies: ["PromiseBasics"] + telemetryProducts, swiftSettings: strictSettings),
        .testTarget(name: "PromiseSystemTests", dependencies: ["PromiseSystem"], swiftSettings: strictSettings),
        .target(name: "PromiseCore", dependencies: ["PromiseBasics"], swiftSettings: strictSettings),
        .target(name: "PromiseTesting", dependencies: ["PromiseCore", "PromiseSystem"], swiftSettings: strictSettings),
        // `Promises.nextSignal` and the process's one owner of signal actions (SignalOwner),
        // which PromiseUV's signal watches and child processes go through too. PromiseCore
        // only, so a program that names it links none of the adapters' plumbing.
        .target(name: "PromiseSignals", dependencies: ["PromiseCore", "PromiseBasics"], swiftSettings: strictSettings),
        .target(name: "PromiseFS", dependencies: ["PromiseCore", "PromiseSystem"], swiftSettings: strictSettings),
        // The system SQLite (Debian 12: 3.40.1): module.modulemap and shim.h only.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "PromiseSQLite",
            dependencies: ["PromiseCore", "PromiseSystem", "CSQLite"] + telemetryProducts,
            swiftSettings: strictSettings
        ),
        // libuv 1.44 (Debian 12). Only PromiseUV imports it, with `internal import`.
        .systemLibrary(name: "CUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"])]),
        .target(
            name: "PromiseUV",
            dependencies: ["PromiseCore", "PromiseSignals", "PromiseSystem", "CUV"] + telemetryProducts,
            swiftSettings: strictSettings
        ),
        // libcurl 7.88 (Debian 12). Only PromiseCurl imports it, with `internal import`.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(
            name: "PromiseCurl",
            dependencies: [
                "PromiseCore", "PromiseSystem", "CCurl",
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Curl"])),
            ] + telemetryProducts,
            swiftSettings: strictSettings
        ),
        // A scripted stand-in for CurlClient, for tests of code that uses PromiseCurl. Its own
        // product, so PromiseTesting stays free of libcurl.
        .target(
            name: "PromiseCurlTesting",
            dependencies: ["PromiseCurl", "PromiseBasics"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PromiseCurlTestingTests",
            dependencies: ["PromiseCurlTesting", "PromiseTesting", "PromiseTestSupport"],
            swiftSettings: strictSettings
        ),
        // swift-log integration: diagnostics to a Logger. PromiseCore and swift-log only.
        .target(
            name: "PromiseLogging",
            dependencies: ["PromiseCore", .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Logging"]))],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PromiseLoggingTests",
            dependencies: [
                "PromiseLogging", "PromiseCurl", "PromiseSQLite", "PromiseUV",
                .product(name: "InMemoryLogging", package: "swift-log", condition: .when(traits: ["Logging"])),
            ],
            swiftSettings: strictSettings
        ),
        // swift-service-lifecycle integration: the adapters' long-lived types as Services.
        // PromiseCore and ServiceLifecycle only: a program names the adapters it uses itself.
        .target(
            name: "PromiseServiceLifecycle",
            dependencies: [
                "PromiseCore",
                .product(
                    name: "ServiceLifecycle",
                    package: "swift-service-lifecycle",
                    condition: .when(traits: ["ServiceLifecycle"])
                ),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PromiseServiceLifecycleTests",
            dependencies: ["PromiseServiceLifecycle", "PromiseTestSupport", "promise-lifecycle-helper"],
            swiftSettings: strictSettings
        ),
        // Spawned by PromiseServiceLifecycleTests: four services in a ServiceGroup, sent SIGTERM.
        .executableTarget(
            name: "promise-lifecycle-helper",
            dependencies: [
                "PromiseServiceLifecycle", "PromiseCurl", "PromiseFS", "PromiseSQLite", "PromiseUV",
                .product(
                    name: "ServiceLifecycle",
                    package: "swift-service-lifecycle",
                    condition: .when(traits: ["ServiceLifecycle"])
                ),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["ServiceLifecycle"])),
            ],
            path: "Tests/PromiseLifecycleHelper",
            swiftSettings: strictSettings
        ),
        // swift-nio integration: promises and EventLoopFutures both ways, and an EventLoop as an
        // execution context. PromiseCore, NIOCore and NIOPosix only.
        .target(
            name: "PromiseNIO",
            dependencies: [
                "PromiseCore",
                "PromiseBasics",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["NIO"])),
                // `MultiThreadedEventLoopGroup.currentEventLoop`: is this thread a loop's?
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["NIO"])),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PromiseNIOTests",
            dependencies: [
                "PromiseNIO", "PromiseTestSupport",
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["NIO"])),
                .product(name: "NIOEmbedded", package: "swift-nio", condition: .when(traits: ["NIO"])),
            ],
            swiftSettings: strictSettings
        ),
        // What several test targets share (timing read where promises settle, waiting for a child
        // process without blocking the pool); not a product.
        .target(
            name: "PromiseTestSupport",
            dependencies: ["PromiseCore", "PromiseSystem"],
            path: "Tests/PromiseTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PromiseCurlTests",
            dependencies: ["PromiseCurl", "PromiseTestSupport", "promisecurl-minimal"],
            swiftSettings: strictSettings
        ),
        // Run by PromiseCurlTests: a program that depends on PromiseCurl alone (checked with ldd).
        .executableTarget(
            name: "promisecurl-minimal",
            dependencies: ["PromiseCurl"],
            path: "Tests/PromiseCurlMinimal",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PromiseCoreTests",
            dependencies: [
                "PromiseCore",
                // Only for CommonPatternsTests' Ctrl-C recipe (CommonPatterns.md and
                // PromiseSignals.md show it).
                "PromiseSignals",
                "PromiseTesting",
                "PromiseTestSupport",
                "promise-core-helper",
                "promise-report-tool",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strictSettings
        ),
        // Spawned by PromiseCoreTests: the async `main` of the "Threading and contexts" article,
        // with the main queue as the default context.
        .executableTarget(
            name: "promise-report-tool",
            dependencies: ["PromiseCore"],
            path: "Tests/PromiseReportToolHelper",
            swiftSettings: strictSettings
        ),
        // Spawned by PromiseCoreTests: blocking waits on a process's own main thread and main queue.
        .executableTarget(
            name: "promise-core-helper",
            dependencies: ["PromiseCore"],
            path: "Tests/PromiseCoreHelper",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PromiseFSTests",
            dependencies: ["PromiseFS", "PromiseTestSupport", "promisefs-helper"],
            swiftSettings: strictSettings
        ),
        // Spawned by PromiseFSTests (a writer to kill, a size limit, a non-root reader).
        .executableTarget(
            name: "promisefs-helper",
            dependencies: ["PromiseFS"],
            path: "Tests/PromiseFSHelper",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PromiseSQLiteTests",
            dependencies: ["PromiseSQLite", "PromiseTestSupport", "promisesqlite-helper"],
            swiftSettings: strictSettings
        ),
        // Spawned by PromiseSQLiteTests: a writer killed with SIGKILL mid-transaction, a
        // second process holding the write lock.
        .executableTarget(
            name: "promisesqlite-helper",
            dependencies: ["PromiseSQLite"],
            path: "Tests/PromiseSQLiteHelper",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PromiseUVTests",
            dependencies: [
                "PromiseUV", "PromiseTestSupport",
                // The signal and child-process tests: `Promises.nextSignal` beside the loop's
                // watches, and the owner's count of children.
                "PromiseSignals",
                // Only for the file-watching tests: one change per PromiseFS atomic write, and
                // the inotify watch limit in a user namespace of the helper's own.
                "PromiseFS", "promiseuv-watch-helper",
            ],
            swiftSettings: strictSettings
        ),
        // Spawned by PromiseUVTests: a program whose main thread is the loop and the default context.
        .executableTarget(
            name: "promiseuv-helper",
            dependencies: ["PromiseUV"],
            path: "Tests/PromiseUVHelper",
            swiftSettings: strictSettings
        ),
        // Spawned by PromiseUVTests: file watches past a lowered inotify watch limit, in a user
        // namespace of its own (`unshare -r`).
        .executableTarget(
            name: "promiseuv-watch-helper",
            dependencies: ["PromiseUV"],
            path: "Tests/PromiseUVWatchHelper",
            swiftSettings: strictSettings
        ),
        // The Tracing and Metrics traits: each adapter's spans and metrics, recorded by the
        // in-memory backends of swift-distributed-tracing and swift-metrics.
        .testTarget(
            name: "PromiseTelemetryTests",
            dependencies: [
                "PromiseCurl", "PromiseSQLite", "PromiseUV", "PromiseTestSupport",
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
            ],
            swiftSettings: strictSettings
        ),
        // The products together: a UVLoop as the default context while PromiseCurl, PromiseFS
        // and PromiseSQLite finish the work, in a helper process of its own.
        .testTarget(
            name: "PromiseIntegrationTests",
            dependencies: [
                "PromiseTestSupport", "promise-integration-helper", "promise-core-signal-helper",
                "promise-signal-owner-helper",
                // In this process: OwnerDeinitPolicyTests drops one owner of each product.
                "PromiseCurl", "PromiseCurlTesting", "PromiseFS", "PromiseSQLite", "PromiseUV",
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "promise-integration-helper",
            dependencies: ["PromiseUV", "PromiseCurl", "PromiseFS", "PromiseSQLite"],
            path: "Tests/PromiseIntegrationHelper",
            swiftSettings: strictSettings
        ),
        // Spawned by PromiseIntegrationTests: `Promises.nextSignal` in a top-level program that
        // depends on PromiseSignals alone, since signals belong to the whole process.
        .executableTarget(
            name: "promise-core-signal-helper",
            dependencies: ["PromiseSignals"],
            path: "Tests/PromiseCoreSignalHelper",
            swiftSettings: strictSettings
        ),
        // Spawned by PromiseIntegrationTests: core and loop signal watches in one process, in
        // the order a script gives, to check that both go through one owner of signal actions.
        .executableTarget(
            name: "promise-signal-owner-helper",
            dependencies: ["PromiseSignals", "PromiseUV"],
            path: "Tests/PromiseSignalOwnerHelper",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PromiseTestingTests",
            dependencies: ["PromiseCore", "PromiseTesting"],
            swiftSettings: strictSettings
        ),
    ]
)
