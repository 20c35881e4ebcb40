import Glibc
import PromiseCore
import PromiseUV
import Testing

/// `UVLoopBound`: loop-confined state reached from `@Sendable` callbacks.
@Suite struct LoopBoundTests {
    /// Deliberately not Sendable: no lock, no `@unchecked`.
    final class Tally {
        var hits = 0
        var names: [String] = []
    }

    @Test func callbacksOnTheLoopShareOneValueWithoutALock() async throws {
        let loop = try startedLoop()
        let tally = UVLoopBound(Tally(), loop: loop)
        let copy = tally
        let chains = (0..<100).map { index in
            Promise(index).then(on: loop) { index in
                tally.value.hits += 1
                copy.withValue { $0.names.append("n\(index)") }
            }
        }
        try await all(chains).get()
        let (hits, names) = try await Promise(on: loop) { (tally.value.hits, tally.value.names.count) }.get()
        #expect(hits == 100)
        #expect(names == 100, "copies share the value")
        try await loop.shutdown().get()
    }

    @Test func aValueTypeIsChangedInPlace() async throws {
        let loop = try startedLoop()
        let counts = UVLoopBound([String: Int](), loop: loop)
        try await all((0..<10).map { _ in loop.after(.zero).then(on: loop) { counts.value["ticks", default: 0] += 1 } }).get()
        #expect(try await Promise(on: loop) { counts.value["ticks"] }.get() == 10)
        try await loop.shutdown().get()
    }

    /// The check is a `precondition`, so it holds in release builds as well as here.
    @Test func touchingTheValueOffTheLoopStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            // Exits 0 (so the test fails) if the check did not stop the process.
            guard let loop = try? UVLoop() else { exit(0) }
            let bound = UVLoopBound(Tally(), loop: loop)
            bound.value.hits += 1  // not on the loop thread: the check stops the process
            exit(0)
        }
    }

    @Test func readingOffTheLoopStopsTheProgramToo() async {
        await #expect(processExitsWith: .failure) {
            guard let loop = try? UVLoop() else { exit(0) }
            let bound = UVLoopBound(Tally(), loop: loop)
            _ = bound.withValue { $0.hits }
            exit(0)
        }
    }
}
