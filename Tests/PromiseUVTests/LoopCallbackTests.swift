import Foundation
import PromiseCore
import PromiseTestSupport
@testable import PromiseUV
import Synchronization
import Testing

/// Work that a libuv callback queues on the loop thread (a promise it settles, whose callbacks
/// run on the loop) runs before the loop next waits for I/O, whichever callback it was. One
/// mechanism does this for all of them (the loop's prepare handle drains its queue before
/// every poll); these tests hold every callback PromiseUV gives libuv to it.
@Suite struct LoopCallbackTests {
    /// Where a promise is settled on the loop thread, each by a different libuv callback.
    enum Source: String, CaseIterable, Sendable {
        case timer, poolWork, otherThread, fileEvent, subdirectoryEvent, childExit, pipeRead, terminalRead, inputWritable
        case closeCallback

        /// The C callbacks (`Enum.name` under Sources/PromiseUV) that settle this source's promise.
        var callbacks: Set<String> {
            switch self {
            case .timer: ["Trampolines.timer"]
            case .poolWork: ["Trampolines.work", "Trampolines.afterWork"]
            case .otherThread: ["Trampolines.wake"]
            case .fileEvent: ["Trampolines.fileEvent"]
            case .subdirectoryEvent: ["Trampolines.subdirectoryEvent"]
            case .childExit: ["ProcessTrampolines.exitReadable"]
            case .pipeRead: ["ProcessTrampolines.allocate", "ProcessTrampolines.read"]
            case .terminalRead: ["ProcessTrampolines.terminalReadable"]
            case .inputWritable: ["ProcessTrampolines.inputWritable"]
            case .closeCallback:
                [
                    "Trampolines.closed", "ProcessTrampolines.exitPollClosed", "ProcessTrampolines.pipeClosed", "Trampolines.fileWatchClosed",
                    "Trampolines.subdirectoryClosed", "ProcessTrampolines.inputClosed",
                ]
            }
        }
    }

    /// The callback that runs the queue itself, and so cannot leave work in it.
    static let drainingCallback = "Trampolines.prepare"

    /// Callbacks that run only while `UVLoop.run()` drives the loop on the process's main
    /// thread, which a test process cannot give up: a helper program holds each to the same
    /// rule, in the test named here (its last main-queue job settles the promise that keeps the
    /// loop running, and nothing else wakes the loop to notice).
    static let coveredByHelper: [String: String] = [
        "Trampolines.mainQueueReadable": "UVLoopTests.mainQueueAndMainActorWorkRunsOnALoopRunByTheMainThread",
        // A loop watches SIGCHLD only on a kernel without pidfds, which a helper stands in
        // for: a test process must not change SIGCHLD's action for every test beside it.
        "ProcessTrampolines.childSignal": "ChildSignalOwnerTests.everyOrderOfSpawnsReapsAndProbesOnTwoLoops",
        "ProcessTrampolines.childSignalClosed": "ChildSignalOwnerTests.everyOrderOfSpawnsReapsAndProbesOnTwoLoops",
    ]

    /// Every `static let NAME: @convention(c)` in PromiseUV's sources, as `Enum.name`.
    static func callbacksInSources() throws -> Set<String> {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/PromiseUV")
        var found: Set<String> = []
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            var owner = ""
            for line in try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8).split(separator: "\n") {
                let words = line.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "{" })
                if let index = words.firstIndex(where: { $0 == "enum" || $0 == "extension" }), index + 1 < words.count,
                    line.first != " "
                {
                    owner = String(words[index + 1])
                }
                if line.contains(": @convention(c)"), let name = words.firstIndex(of: "let").map({ words[$0 + 1] }) {
                    found.insert("\(owner).\(name)")
                }
            }
        }
        return found
    }

    @Test func everyLibuvCallbackIsCoveredBelow() throws {
        let inSources = try Self.callbacksInSources()
        #expect(inSources.count >= 10, "the scan found too few callbacks: \(inSources.sorted())")
        let covered = Source.allCases.reduce(into: Set([Self.drainingCallback] + Self.coveredByHelper.keys)) {
            $0.formUnion($1.callbacks)
        }
        #expect(inSources.subtracting(covered).isEmpty, "callbacks with no test below: \(inSources.subtracting(covered).sorted())")
        #expect(covered.subtracting(inSources).isEmpty, "covered callbacks that no longer exist: \(covered.subtracting(inSources).sorted())")
    }

    /// A promise settled by `source`'s callback on a loop that nothing else wakes, chained on
    /// the loop: the chained callback runs.
    @Test(arguments: Source.allCases)
    func workQueuedInTheCallbackRunsBeforeTheNextPoll(_ source: Source) async throws {
        let loop = try startedLoop("uv-callbacks")
        defer { loop.shutdown() }
        let directory = try TemporaryDirectory()
        // Each chained callback is queued on the loop thread by the callback that settles.
        func onLoop<Value>(_ promise: Promise<Value>) -> Promise<Bool> {
            promise.then(on: loop) { _ in loop.isOnLoopThread }
        }
        let chained: Promise<Bool>
        switch source {
        case .timer:
            chained = onLoop(loop.after(.milliseconds(1)))
        case .poolWork:
            chained = onLoop(loop.work {})
        case .otherThread:
            chained = onLoop(Promise<Void>(on: loop) {})
        case .fileEvent:
            let path = directory.path + "/watched"
            try writeFile("", to: path)
            let change = loop.nextChange(of: path)
            try await loop.after(.zero).get()  // work from one thread runs in order: the watch has started
            chained = onLoop(change)
            writeInPlace(path, "x")
        case .subdirectoryEvent:
            let below = directory.path + "/below"
            try FileManager.default.createDirectory(atPath: below, withIntermediateDirectories: false)
            let change = loop.nextChange(of: directory.path, recursive: true)
            try await loop.after(.zero).get()  // the watch of `below` has started
            chained = onLoop(change)
            writeInPlace(below + "/file", "x")
        case .childExit:
            chained = onLoop(loop.spawn(UVCommand("/bin/true")))
        case .pipeRead:
            let (line, lineResolver) = Promise<Void>.pending()
            let child = loop.spawn(
                UVCommand(
                    "/bin/sh", arguments: ["-c", "echo line; exec sleep 3600"],
                    standardOutput: .lines(on: loop) { _ in lineResolver.fulfill(()) }, terminationGrace: .zero))
            chained = onLoop(line)
            chained.always { child.cancel() }
        case .terminalRead:
            let (line, lineResolver) = Promise<Void>.pending()
            var command = UVCommand(
                "/bin/sh", arguments: ["-c", "echo line; exec sleep 3600"],
                standardOutput: .lines(on: loop) { _ in lineResolver.fulfill(()) }, terminationGrace: .zero)
            command.terminal = UVCommand.Terminal()
            let child = loop.spawn(command)
            chained = onLoop(line)
            chained.always { child.cancel() }
        case .inputWritable:
            // More than the pipe holds, to a child that reads only later: the write's promise
            // settles in the callback that finds room again.
            let child = loop.start(
                UVCommand("/bin/sh", arguments: ["-c", "sleep 0.3; exec cat > /dev/null"], standardInput: .writer, standardOutput: .discard))
            let input = try #require(child.standardInput)
            chained = onLoop(input.write([UInt8](repeating: 0x61, count: 8 << 20)))
            chained.always { input.finish() }
        case .closeCallback:
            // A child's promise settles once its process handle and both pipes have closed.
            chained = onLoop(loop.spawn(UVCommand("/bin/sh", arguments: ["-c", "echo out; echo err >&2"])))
        }
        let ran = Lock<Bool?>(nil)
        chained.then { wasOnLoop in ran.withLock { $0 = wasOnLoop } }
        #expect(try await eventually(.seconds(20)) { ran.withLock { $0 } != nil }, "the chained callback never ran")
        #expect(ran.withLock { $0 } == true)
    }
}
