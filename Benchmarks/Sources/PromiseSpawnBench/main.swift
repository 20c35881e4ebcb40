// Spawn-and-wait throughput of /bin/true, one candidate per process run:
//
//   PromiseSpawnBench raw|promiseuv|subprocess COUNT
//
// prints `candidate<TAB>seconds<TAB>count` for COUNT spawns, each waited for before the next.
// With PARENT_MIB=N in the environment, the process first allocates and touches N MiB, as a
// server with a large heap would have, and keeps it until the end.
// Benchmarks/spawn-ratios.sh runs the candidates in interleaved rounds beside Node's
// child_process and prints medians and ratios against the raw posix_spawn loop.
import Glibc
import PromiseUV
import SpawnRawBench
import Subprocess

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]), count > 0 else {
    print("usage: PromiseSpawnBench raw|promiseuv|subprocess COUNT")
    exit(2)
}
let program = "/bin/true"

/// The memory the parent holds while it spawns: every page written, so each is mapped.
let ballastBytes = (BenchEnvironment.integer("PARENT_MIB") ?? 0) << 20
let ballast = UnsafeMutableRawPointer.allocate(byteCount: max(ballastBytes, 1), alignment: 4_096)
memset(ballast, 0x5a, ballastBytes)
defer { ballast.deallocate() }

enum BenchEnvironment {
    static func integer(_ name: String) -> Int? {
        getenv(name).flatMap { Int(String(cString: $0)) }
    }
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Runs an async body to completion from synchronous top-level code.
func blocking(_ body: @escaping @Sendable () async throws -> Void) throws {
    let done = DispatchSemaphoreBox()
    Task.detached {
        do { try await body() } catch { done.error = error }
        done.signal()
    }
    done.wait()
    if let error = done.error { throw error }
}

switch arguments[1] {
case "raw":
    let time = seconds { precondition(spawn_raw_loop(program, Int64(count)) == count) }
    print("raw posix_spawn\t\(time)\t\(count)")
case "promiseuv":
    let loop = try UVLoop()
    let command = UVCommand(program, standardOutput: .discard, standardError: .discard)
    let time = try seconds {
        for _ in 0..<count {
            let result = try loop.run(until: loop.spawn(command))
            precondition(result.exit == .exited(0))
        }
    }
    try awaitPromise(loop.shutdown())
    print("PromiseUV spawn\t\(time)\t\(count)")
case "subprocess":
    let start = ContinuousClock.now
    try blocking {
        for _ in 0..<count {
            let result = try await Subprocess.run(.path("/bin/true"), output: .discarded, error: .discarded)
            precondition(result.terminationStatus.isSuccess)
        }
    }
    let elapsed = ContinuousClock.now - start
    let time = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print("swift-subprocess run\t\(time)\t\(count)")
default:
    print("unknown candidate \(arguments[1])")
    exit(2)
}
