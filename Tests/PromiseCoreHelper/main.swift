// Blocking waits that involve the main queue, in a program that depends on PromiseCore alone:
// only a process's own main thread shows how `awaitPromise` treats it. Spawned by
// PromiseCoreTests' MainQueueWaitTests.
//
//   promise-core-helper default-main        sets `Promises.defaultContext` to the main queue
//                                           and waits on the main thread, without a timeout,
//                                           for `Promise(20).then { $0 + 1 }`: prints the error
//   promise-core-helper timed-main          the same with a 5 s timeout: prints the error
//   promise-core-helper other-thread        a second thread waits 300 ms for a main-queue step
//                                           while the main thread blocks elsewhere: prints the
//                                           error
//   promise-core-helper main-queue-block    in a main-queue block run by `dispatchMain()`,
//                                           waits for a main-queue step: prints the error
//   promise-core-helper drained             the main thread runs `dispatchMain()`; another
//                                           thread waits for a main-queue step: prints "value 21"
//
// A main-queue step is a `then` with the main queue as `Promises.defaultContext`.
//
// Every mode exits 0 once it has printed its line.
import Dispatch
import Glibc
import PromiseCore

/// Writes one line to standard output at once.
func say(_ line: String) {
    let text = line + "\n"
    _ = text.utf8CString.withUnsafeBytes { write(1, $0.baseAddress, $0.count - 1) }
}

/// Prints how a wait ended.
func report(_ body: () throws -> Int) {
    do {
        say("value \(try body())")
    } catch let error as PromiseError {
        say("\(error.code): \(error.message)")
    } catch {
        say("other: \(error)")
    }
}

/// Runs `body` on a new thread.
func onThread(_ body: @escaping @Sendable () -> Void) {
    var thread = pthread_t()
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    pthread_create(
        &thread, nil,
        { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
    pthread_detach(thread)
}

final class Box: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

func main() {
    let mode = CommandLine.arguments.dropFirst().first ?? ""
    switch mode {
    case "default-main":
        Promises.defaultContext = DispatchQueue.main
        report { try awaitPromise(Promise(20).then { $0 + 1 }) }
        exit(0)
    case "timed-main":
        Promises.defaultContext = DispatchQueue.main
        report { try awaitPromise(Promise(20).then { $0 + 1 }, timeout: .seconds(5)) }
        exit(0)
    case "other-thread":
        let done = DispatchSemaphore(value: 0)
        Promises.defaultContext = DispatchQueue.main
        onThread {
            report { try awaitPromise(Promise(20).then { $0 + 1 }, timeout: .milliseconds(300)) }
            done.signal()
        }
        done.wait()
        exit(0)
    case "main-queue-block":
        Promises.defaultContext = DispatchQueue.main
        DispatchQueue.main.async {
            report { try awaitPromise(Promise(20).then { $0 + 1 }, timeout: .seconds(5)) }
            exit(0)
        }
        dispatchMain()
    case "drained":
        Promises.defaultContext = DispatchQueue.main
        onThread {
            report { try awaitPromise(Promise(20).then { $0 + 1 }) }
            exit(0)
        }
        dispatchMain()
    default:
        say("unknown mode \(mode)")
        exit(2)
    }
}

main()
