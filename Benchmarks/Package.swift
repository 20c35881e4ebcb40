// swift-tools-version: 6.1
// Benchmarks for swift-promise: each PromiseCore workload runs beside its GCD and
// SwiftNIO EventLoopFuture baselines in one process run. Kept as a separate package so
// the root package never depends on NIO or package-benchmark.
//
//   cd Benchmarks && swift package --disable-sandbox benchmark
//   Benchmarks/ratios.sh        # medians, min/max, ratios, size probe
//   Benchmarks/counts.sh        # instructions and mallocs per operation, under valgrind

import PackageDescription

let package = Package(
    name: "swift-promise-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        // NIO for PromiseNIO (the bridge's counts and the LinkNotes route); Curl is the default.
        .package(name: "swift-promise", path: "..", traits: ["Curl", "NIO"]),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        // The peer for PromiseSQLite (it needs swift-nio 2.101.3 or later).
        .package(url: "https://github.com/vapor/sqlite-nio", exact: "1.13.2"),
        // The peer for PromiseCurl.
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        // ordo-one/benchmark, formerly package-benchmark (the old identity prints a deprecation
        // warning). The MallocInterposer trait is what makes mallocCount* metrics work on Linux;
        // the other default trait, RuntimeInterposer, needs a package the mirror does not have.
        .package(
            url: "https://github.com/ordo-one/benchmark",
            exact: "1.38.1",
            traits: ["MallocInterposer"]
        ),
        // The peer for PromiseSQLite's value observation (Benchmarks/sqlite-observation.sh).
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // LinkNotes, the Hummingbird 2 example, for Benchmarks/route-ratios.sh.
        .package(name: "swift-promise-examples", path: "../Examples"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        // The Swift peer for PromiseUV's child processes (Benchmarks/spawn-ratios.sh).
        .package(url: "https://github.com/swiftlang/swift-subprocess", exact: "1.0.2"),
    ],
    targets: [
        .executableTarget(
            name: "PromiseCoreBenchmarks",
            dependencies: [
                .product(name: "PromiseCore", package: "swift-promise"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Benchmark", package: "benchmark"),
                "PromiseCoreScenarios",
            ],
            path: "Benchmarks/PromiseCoreBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The PromiseCore workloads and their GCD and NIO baselines, shared by the two above and below.
        .target(
            name: "PromiseCoreScenarios",
            dependencies: [
                .product(name: "PromiseCore", package: "swift-promise"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/PromiseCoreScenarios",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Instructions and heap allocations per operation of PromiseCore beside SwiftNIO and GCD,
        // counted under valgrind by Benchmarks/counts.sh (deterministic, unlike wall time).
        // A plain executable: `PromiseCoreCounts <scenario>/<variant> <iterations>`.
        .executableTarget(
            name: "PromiseCoreCounts",
            dependencies: [
                .product(name: "PromiseCore", package: "swift-promise"),
                .product(name: "PromiseNIO", package: "swift-promise"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                "PromiseCoreScenarios",
            ],
            path: "Sources/PromiseCoreCounts",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // PromiseFS beside raw read(2)/write(2); Benchmarks/fs-ratios.sh adds Node's fs/promises.
        // A plain executable: each workload takes seconds and moves a gibibyte, which does
        // not fit package-benchmark's many-iterations model.
        .executableTarget(
            name: "PromiseFSBench",
            dependencies: [.product(name: "PromiseFS", package: "swift-promise")],
            path: "Sources/PromiseFSBench",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // PromiseSQLite beside raw C sqlite3 calls (RawSQLite) and vapor/sqlite-nio.
        .executableTarget(
            name: "PromiseSQLiteBench",
            dependencies: [
                .product(name: "PromiseSQLite", package: "swift-promise"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                "RawSQLite",
            ],
            path: "Sources/PromiseSQLiteBench",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The cost of a running SQLiteValueObservation beside GRDB's ValueObservation
        // (Benchmarks/sqlite-observation.sh).
        .executableTarget(
            name: "SQLiteObservationBench",
            dependencies: [
                .product(name: "PromiseSQLite", package: "swift-promise"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/SQLiteObservationBench",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // PromiseSQLite's online backup beside the sqlite3 shell's `.backup`, in MB/s
        // (Benchmarks/sqlite-backup.sh).
        .executableTarget(
            name: "PromiseSQLiteBackupBench",
            dependencies: [.product(name: "PromiseSQLite", package: "swift-promise")],
            path: "Sources/PromiseSQLiteBackupBench",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Instructions and mallocs per row of PromiseSQLite beside raw C, counted under valgrind
        // by Benchmarks/sqlite-counts.sh (sqlite-nio's bundled SQLite does not run under valgrind).
        .executableTarget(
            name: "PromiseSQLiteCounts",
            dependencies: [.product(name: "PromiseSQLite", package: "swift-promise"), "RawSQLite"],
            path: "Sources/PromiseSQLiteCounts",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "RawSQLite",
            path: "Sources/RawSQLite",
            cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("sqlite3")]
        ),
        // PromiseUV beside raw libuv (UVRawBench, plain C) and a serial DispatchQueue;
        // Benchmarks/uv-ratios.sh adds the Bluebird workloads on Node.
        .executableTarget(
            name: "PromiseUVBench",
            dependencies: [.product(name: "PromiseUV", package: "swift-promise"), "UVRawBench"],
            path: "Sources/PromiseUVBench",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "UVRawBench",
            path: "Sources/UVRawBench",
            cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("uv")]
        ),
        // PromiseUV's spawn beside a raw C posix_spawn loop (SpawnRawBench) and swift-subprocess;
        // Benchmarks/spawn-ratios.sh adds Node's child_process.
        .executableTarget(
            name: "PromiseSpawnBench",
            dependencies: [
                .product(name: "PromiseUV", package: "swift-promise"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                "SpawnRawBench",
            ],
            path: "Sources/PromiseSpawnBench",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "SpawnRawBench",
            path: "Sources/SpawnRawBench",
            cSettings: [.unsafeFlags(["-O2"])]
        ),
        // PromiseCurl beside a raw C libcurl multi loop (CurlRawBench) and AsyncHTTPClient,
        // against nginx on loopback; Benchmarks/curl-ratios.sh.
        .executableTarget(
            name: "PromiseCurlBench",
            dependencies: [
                .product(name: "PromiseCurl", package: "swift-promise"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                "CurlRawBench",
            ],
            path: "Sources/PromiseCurlBench",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // LinkNotes' route beside the same route on sqlite-nio and AsyncHTTPClient, served to wrk
        // (Benchmarks/route-ratios.sh).
        .executableTarget(
            name: "LinkNotesBench",
            dependencies: [
                .product(name: "LinkNotes", package: "swift-promise-examples"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PromiseCurl", package: "swift-promise"),
                .product(name: "PromiseSQLite", package: "swift-promise"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/LinkNotesBench",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "CurlRawBench",
            path: "Sources/CurlRawBench",
            cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("curl")]
        ),
        // Release-binary size cost of PromiseCore: same program with and without it.
        .executableTarget(
            name: "SizeProbe",
            dependencies: [.product(name: "PromiseCore", package: "swift-promise")],
            path: "Sources/SizeProbe",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "SizeProbeNIO",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/SizeProbeNIO",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "SizeProbeBaseline",
            path: "Sources/SizeProbeBaseline",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
