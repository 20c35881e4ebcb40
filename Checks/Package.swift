// swift-tools-version: 6.1
// Deterministic cost checks of PromiseCore that `make test` runs (scripts/check-core-cost): the
// bytes PromiseCore adds to a stripped release executable, and the heap allocations of its
// single-threaded hot paths. A package of its own so that the checks build PromiseCore the way
// a client does: in release, as a dependency, with no traits, so nothing else is resolved.

import PackageDescription

// A path dependency's identity is its directory's name ("swift-promise" in a fresh clone).
let package = Package(
    name: "swift-promise-checks",
    dependencies: [.package(name: "swift-promise", path: "..", traits: [])],
    targets: [
        // The smallest real use of PromiseCore: a chain on a queue and a blocking wait. The
        // same program as Benchmarks/Sources/SizeProbe.
        .executableTarget(
            name: "core-size-probe",
            dependencies: [.product(name: "PromiseCore", package: "swift-promise")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The same work with plain Dispatch: the size of everything that is not PromiseCore.
        .executableTarget(name: "core-size-baseline", swiftSettings: [.swiftLanguageMode(.v6)]),
        // The three single-threaded scenarios of Benchmarks/counts.sh, for counting mallocs.
        .executableTarget(
            name: "core-allocations",
            dependencies: [.product(name: "PromiseCore", package: "swift-promise")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
