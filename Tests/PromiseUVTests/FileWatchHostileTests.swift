import Foundation
import PromiseFS
@testable import PromiseUV
import PromiseTestSupport
import Testing

/// File watches under misuse and pressure: missing paths, paths removed while watched,
/// cancellation at every step, shutdown and a dropped loop, other threads, many watches,
/// bursts of writes.
extension InotifyTests {
    @Suite struct FileWatchHostileTests {
        @Test func aMissingPathIsAClearMatchableError() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let loop = try startedLoop()
            let missing = dir("nope/deeper")
            do {
                _ = try await loop.nextChange(of: missing).get()
                Issue.record("a missing path was watched")
            } catch UVError.Code.noSuchFileOrDirectory {
            }
            let error = try #require(await #expect(throws: UVError.self) { try await loop.nextChange(of: missing).get() })
            #expect(error.description.contains(missing), "\(error)")
            #expect(error.operation == "nextChange")
            await expectUVError(.noSuchFileOrDirectory) {
                for try await _ in loop.changes(of: missing) {}
            }
            await expectUVError(.noSuchFileOrDirectory) {
                try await loop.watchChanges(of: missing) { _ in }.get()
            }
            await expectUVError(.invalidArgument) { try await loop.nextChange(of: "").get() }
            await expectUVError(.invalidArgument) { try await loop.nextChange(of: dir("a\0b")).get() }
            writeInPlace(dir("file"), "")
            await expectUVError(UVError.Code(uvCode: -20)) { try await loop.nextChange(of: dir("file/inside")).get() }
            let tooLong = dir(String(repeating: "n", count: 5_000))
            let longError = await expectUVError(UVError.Code(uvCode: -36)) { try await loop.nextChange(of: tooLong).get() }
            #expect(longError?.code.libuvName == "ENAMETOOLONG")
            #expect(try await liveWatches(loop) == 0)
            try await loop.shutdown().get()
        }

        @Test func removingTheWatchedDirectoryEndsTheWatchWithNoSuchFileOrDirectory() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let watched = dir("watched")
            mkdir(watched, 0o755)
            writeInPlace(dir("watched/inside"), "x")
            let loop = try startedLoop()
            let log = ChangeLog()
            let directoryWatch = loop.watchChanges(of: watched) { change in log.record(change, onLoop: true) }
            let fileWatch = loop.nextChange(of: dir("watched/inside"))
            _ = try await onLoopThread(loop) {}
            #expect(system("rm -rf '\(watched)'") == 0)
            let error = try #require(await #expect(throws: UVError.self) { try await directoryWatch.get() })
            #expect(error.code == .noSuchFileOrDirectory)
            #expect(error.detail.contains("removed or moved away"), "\(error)")
            // The file watch saw its file go first: a change that says it is gone.
            let change = try await fileWatch.get()
            #expect(change.events.contains(.rename) && !change.exists)
            #expect(log.changes.contains { $0.name == "inside" && !$0.exists })
            #expect(try await liveWatches(loop) == 0)
            try await loop.shutdown().get()
        }

        @Test func aDirectoryGivenWithTrailingSlashesIsWatchedAndItsRemovalNoticed() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            mkdir(dir("sub"), 0o755)
            let loop = try startedLoop()
            let log = ChangeLog()
            let watching = loop.watchChanges(of: dir("sub//")) { change in log.record(change, onLoop: true) }
            _ = try await onLoopThread(loop) {}
            writeInPlace(dir("sub/entry"), "")
            #expect(try await eventually { log.count >= 1 })
            #expect(log.changes[0].path == dir("sub//entry") && log.changes[0].name == "entry")
            #expect(rmdir(dir("sub")) != 0)  // not empty yet
            unlink(dir("sub/entry"))
            #expect(rmdir(dir("sub")) == 0)
            await expectUVError(.noSuchFileOrDirectory) { try await watching.get() }
            try await loop.shutdown().get()
        }

        /// A `body` that cancels its own watch is the last call, even inside a batch of merged
        /// changes: three files made while the loop was busy arrive together, and only the
        /// first reaches `body`.
        @Test func aBodyThatCancelsItsWatchGetsNoMoreOfTheBatch() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let loop = try startedLoop()
            let log = ChangeLog()
            let own = Lock<Promise<Void>?>(nil)
            let watch = loop.watchChanges(of: dir.path) { change in
                log.record(change, onLoop: true)
                own.withLock { $0 }?.cancel()
            }
            own.withLock { $0 = watch }
            _ = try await onLoopThread(loop) {}
            let gate = DispatchSemaphore(value: 0)
            let entered = Lock(false)
            let busy = Task {
                try await onLoopThread(loop) {
                    entered.withLock { $0 = true }
                    gate.wait()
                }
            }
            #expect(try await eventually { entered.withLock { $0 } })
            for name in ["one", "two", "three"] { writeInPlace(dir(name), "x") }
            gate.signal()
            try await busy.value
            await #expect(throws: CancellationError.self) { try await watch.get() }
            _ = try await onLoopThread(loop) {}
            #expect(log.count == 1, "\(log.changes.map(\.name))")
            try await loop.shutdown().get()
        }

        /// Two tasks waiting on copies of one iterator (which is not `Sendable`: only code that
        /// opts out of the checks can do this): the second is refused at once, and the first gets
        /// the change, instead of one of them waiting forever.
        @Test func aSecondTaskWaitingOnTheSameIteratorIsRefused() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let loop = try startedLoop()
            let shared = UncheckedIterator(iterator: loop.changes(of: dir.path).makeAsyncIterator())
            _ = try await onLoopThread(loop) {}
            let first = Task { await shared.next() }
            let second = Task { await shared.next() }
            #expect(try await eventually { shared.outcomes == ["refused"] })
            writeInPlace(dir("new"), "x")
            _ = await (first.value, second.value)
            #expect(shared.outcomes == ["refused", "change new"])
            try await loop.shutdown().get()
        }

        @Test func movingTheWatchedFilesDirectoryAwayEndsTheWatch() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            mkdir(dir("a"), 0o755)
            writeInPlace(dir("a/file"), "x")
            let loop = try startedLoop()
            let watching = loop.watchChanges(of: dir("a/file")) { _ in }
            _ = try await onLoopThread(loop) {}
            #expect(rename(dir("a"), dir("b")) == 0)
            await expectUVError(.noSuchFileOrDirectory) { try await watching.get() }
            try await loop.shutdown().get()
        }

        @Test func cancellingBeforeTheStartMeansTheWatchNeverStarts() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let loop = try UVLoop()  // nobody runs it yet: the starts wait in its queue
            let next = loop.nextChange(of: dir.path)
            let watching = loop.watchChanges(of: dir.path) { _ in Issue.record("a cancelled watch delivered") }
            next.cancel()
            watching.cancel()
            try loop.startThread()
            await #expect(throws: CancellationError.self) { try await next.get() }
            await #expect(throws: CancellationError.self) { try await watching.get() }
            #expect(try await liveWatches(loop) == 0)
            #expect(try await onLoopThread(loop) { loop.core.inotifyDescriptor } == -1, "no inotify instance was opened")
            try await loop.shutdown().get()
        }

        @Test func cancellingWhileWaitingRemovesTheKernelWatch() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let loop = try startedLoop()
            let next = loop.nextChange(of: dir.path)
            let chained = next.then(on: loop) { _ in "ran" }
            let fd = try await onLoopThread(loop) { loop.core.inotifyDescriptor }
            #expect(kernelWatchCount(fd) == 1)
            next.cancel()
            await #expect(throws: CancellationError.self) { try await chained.get() }
            #expect(try await liveWatches(loop) == 0)
            #expect(kernelWatchCount(fd) == 0)
            try await loop.shutdown().get()
        }

        @Test func cancellingAfterAChangeStopsFurtherCalls() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let loop = try startedLoop()
            let log = ChangeLog()
            let watching = loop.watchChanges(of: dir.path) { change in log.record(change, onLoop: true) }
            _ = try await onLoopThread(loop) {}
            writeInPlace(dir("one"), "")
            #expect(try await eventually { log.count >= 1 })
            watching.cancel()
            await #expect(throws: CancellationError.self) { try await watching.get() }
            let before = log.count
            _ = try await onLoopThread(loop) {}  // the cancellation has been processed
            // A second watch of the same directory sees "two": the first, cancelled, must not.
            let second = loop.nextChange(of: dir.path)
            _ = try await onLoopThread(loop) {}
            writeInPlace(dir("two"), "")
            #expect(try await second.get().name == "two")
            _ = try await onLoopThread(loop) {}
            #expect(log.count == before)
            // Cancelling a fulfilled promise changes nothing.
            let done = loop.nextChange(of: dir.path)
            _ = try await onLoopThread(loop) {}
            writeInPlace(dir("four"), "")
            _ = try await done.get()
            done.cancel()
            #expect(try await done.get().name == "four")
            try await loop.shutdown().get()
        }

        @Test func shutdownRejectsEveryPendingWatchWithLoopClosed() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let loop = try startedLoop()
            let next = loop.nextChange(of: dir.path)
            let watching = loop.watchChanges(of: dir.path) { _ in }
            let reader = Task {
                for try await _ in loop.changes(of: dir.path) {}
            }
            #expect(try await eventuallyAsync { try await liveWatches(loop) == 3 })
            try await loop.shutdown().get()
            await expectUVError(.loopClosed) { try await next.get() }
            await expectUVError(.loopClosed) { try await watching.get() }
            await expectUVError(.loopClosed) { try await reader.value }
            // After shutdown, new watches are refused at once.
            await expectUVError(.loopClosed) { try await loop.nextChange(of: dir.path).get() }
        }

        @Test func aDroppedLoopRejectsItsWatchesAndSaysSo() async throws {
            NotShutDownRecorder.install
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let name = "watch-drop-\(UInt32.random(in: 0...UInt32.max))"
            let next: Promise<UVFileChange>
            do {
                let loop = try UVLoop()
                try loop.startThread(named: name)
                next = loop.nextChange(of: dir.path)
                _ = try await onLoopThread(loop) {}
            }
            let error = try #require(await #expect(throws: UVError.self) { try await next.get() })
            #expect(error.code == .loopClosed)
            #expect(try await eventually { !NotShutDownRecorder.reports(mentioning: name).isEmpty })
            let report = NotShutDownRecorder.reports(mentioning: name).joined()
            #expect(report.contains("1 file watch was rejected with loopClosed"), "\(report)")
        }

        @Test func watchesStartFromAnyThreadAndDeliverOnTheLoopThread() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let loop = try startedLoop()
            let log = ChangeLog()
            // From a plain thread, from a task, and from a callback on the loop thread.
            let fromThread = try await onNewThread {
                loop.watchChanges(of: dir.path) { change in log.record(change, onLoop: loop.isOnLoopThread) }
            }.get()
            let fromTask = Task { loop.watchChanges(of: dir.path) { change in log.record(change, onLoop: loop.isOnLoopThread) } }
            let fromTaskWatch = await fromTask.value
            let fromLoop = try await onLoopThread(loop) {
                loop.watchChanges(of: dir.path) { change in log.record(change, onLoop: loop.isOnLoopThread) }
            }
            #expect(try await liveWatches(loop) == 3)
            writeInPlace(dir("x"), "")
            #expect(try await eventually { log.count >= 3 })
            #expect(log.callsOffTheLoopThread == 0)
            // A blocking wait for a change inside a loop callback could never end: refused.
            let waited = try await onLoopThread(loop) {
                let next = loop.nextChange(of: dir.path)
                defer { next.cancel() }
                return Result { try awaitPromise(next) }
            }
            #expect { try waited.get() } throws: { ($0 as? PromiseError)?.code == .deadlock }
            for watch in [fromThread, fromTaskWatch, fromLoop] { watch.cancel() }
            try await loop.shutdown().get()
        }

        @Test func aThousandWatchesStartedAndCancelledLeaveNoDescriptorAndNoKernelWatch() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            for index in 0..<100 { mkdir(dir("d\(index)"), 0o755) }
            // Zero unless an earlier test of this serialized suite failed before its shutdown.
            let baseline = inotifyInstanceCount()
            let loop = try startedLoop()
            var descriptors: Set<Int32> = []
            for round in 0..<10 {
                let watches = (0..<100).map { index in loop.nextChange(of: dir("d\(index)")) }
                let fd = try await onLoopThread(loop) { loop.core.inotifyDescriptor }
                descriptors.insert(fd)
                #expect(kernelWatchCount(fd) == 100, "round \(round)")
                for watch in watches { watch.cancel() }
                #expect(try await liveWatches(loop) == 0)
                #expect(kernelWatchCount(fd) == 0, "round \(round)")
            }
            #expect(descriptors.count == 1, "one inotify descriptor per loop, whatever the number of watches")
            #expect(inotifyInstanceCount() == baseline + 1)
            try await loop.shutdown().get()
            #expect(inotifyInstanceCount() == baseline, "the loop's close closes its inotify descriptor")
        }

        @Test func aBurstOfWritesWaitsMergedForASlowConsumer() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let file = dir("busy")
            writeInPlace(file, "")
            writeInPlace(dir("sentinel"), "")
            let loop = try startedLoop()
            let changes = loop.changes(of: file)
            var fileIterator = changes.makeAsyncIterator()
            let directoryChanges = loop.changes(of: dir.path)
            var directoryIterator = directoryChanges.makeAsyncIterator()
            let log = ChangeLog()
            // The sentinel is watched by its own name: a directory watch whose callback gets
            // more than `waitingLimit` names in one pass (a loop thread slow to read, on a busy
            // machine) gets them as one change with no name, the sentinel's among them.
            let sentinelWatch = loop.watchChanges(of: dir("sentinel")) { change in log.record(change, onLoop: true) }
            let calls = ChangeLog()
            let callbackWatch = loop.watchChanges(of: file) { change in calls.record(change, onLoop: true) }
            #expect(try await eventuallyAsync { try await liveWatches(loop) == 4 })
            // 10 000 writes to one file, and 1 000 new files, while nobody reads.
            let fd = open(file, O_WRONLY | O_APPEND | O_CLOEXEC)
            for _ in 0..<10_000 { _ = write(fd, "x", 1) }
            close(fd)
            for index in 0..<1_000 { writeInPlace(dir("n\(index)"), "") }
            writeInPlace(dir("sentinel"), "written last")
            #expect(try await eventually { log.changes.contains { $0.name == "sentinel" } })
            _ = try await onLoopThread(loop) {}  // every watch's delivery of that pass has run
            // The file watch holds one change, however many writes it merges.
            let merged = try #require(try await fileIterator.next())
            #expect(merged.name == "busy" && merged.events.contains(.change) && merged.count >= 1)
            // The directory watch holds at most `waitingLimit` names, then one change for the rest.
            var drained: [UVFileChange] = []
            while drained.last?.name != nil || drained.isEmpty {
                drained.append(try #require(try await directoryIterator.next()))
            }
            #expect(drained.count == UVFileChanges.waitingLimit + 1)
            #expect(drained.last?.path == dir.path && drained.last?.exists == true)
            // A callback that keeps up sees the same writes in far fewer calls: the kernel
            // merges identical unread events, and the watch merges what one poll read.
            let events = calls.changes.reduce(0) { $0 + $1.count }
            #expect(calls.count >= 1 && calls.count <= events && events <= 10_000)
            print("10 000 writes: \(events) kernel events reached the callback watch, in \(calls.count) calls")
            sentinelWatch.cancel()
            callbackWatch.cancel()
            try await loop.shutdown().get()
        }
    }
}

extension InotifyTests.FileWatchHostileTests {
    @Test func theSequenceThrowsAfterTheChangesWhenItsDirectoryIsRemoved() async throws {
        let dir = try WatchDirectory()
        defer { dir.cleanUp() }
        let watched = dir("watched")
        mkdir(watched, 0o755)
        let loop = try startedLoop()
        let seen = ChangeLog()
        let reader = Task {
            for try await change in loop.changes(of: watched) {
                seen.record(change, onLoop: false)
            }
        }
        #expect(try await eventuallyAsync { try await liveWatches(loop) == 1 })
        writeInPlace("\(watched)/entry", "x")
        #expect(try await eventually { seen.count >= 1 })
        chmod(watched, 0o700)  // the directory's own attributes: not an entry's change
        #expect(system("rm -rf '\(watched)'") == 0)
        await expectUVError(.noSuchFileOrDirectory) { try await reader.value }
        #expect(seen.changes.first?.name == "entry")
        #expect(seen.changes.last?.name == "entry" && seen.changes.last?.exists == false, "\(seen.changes)")
        #expect(!seen.changes.contains { $0.name == "watched" }, "\(seen.changes)")
        try await loop.shutdown().get()
    }
}

/// An iterator handed to several tasks on purpose, to test that misuse; each `next()` reads a
/// copy of it and records what it got.
private final class UncheckedIterator: @unchecked Sendable {
    let iterator: UVFileChanges.AsyncIterator
    private let recorded = Lock<[String]>([])
    init(iterator: UVFileChanges.AsyncIterator) { self.iterator = iterator }

    var outcomes: [String] { recorded.withLock { $0 } }

    func next() async {
        var copy = iterator
        let outcome: String
        do {
            outcome = "change \(try await copy.next()?.name ?? "nil")"
        } catch let error as UVError where error.code == .invalidArgument {
            outcome = "refused"
        } catch {
            outcome = "\(error)"
        }
        recorded.withLock { $0.append(outcome) }
    }
}
