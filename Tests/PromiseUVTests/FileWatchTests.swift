import Foundation
import PromiseFS
@testable import PromiseUV
import PromiseTestSupport
import Testing

/// `UVLoop.nextChange(of:)`, `watchChanges(of:_:)` and `changes(of:)` on real temporary
/// directories and real loops; atomic writes go through PromiseFS.
extension InotifyTests {
    @Suite struct FileWatchTests {
        let fs = PromiseFileSystem()

        @Test func eachAtomicWriteIsOneChangeAndTheWatchOutlivesTheReplacedInode() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let config = dir("config.json")
            try await fs.writeText(config, "{}").get()
            let loop = try startedLoop()
            let log = ChangeLog()
            let watching = loop.watchChanges(of: config) { change in log.record(change, onLoop: loop.isOnLoopThread) }
            _ = try await onLoopThread(loop) {}  // the watch has started
            var previous = try #require(inode(of: config))
            for round in 1...5 {
                try await fs.writeText(config, "{\"round\": \(round)}").get()
                let replaced = try #require(inode(of: config))
                // A new inode at the name each time (the file system may reuse a freed number later).
                #expect(replaced != previous, "round \(round)")
                previous = replaced
                #expect(try await eventually { log.count >= round }, "round \(round): no change seen")
            }
            // A sentinel the watch reports as a `change`: once it is in, every event the writes
            // caused has been delivered (inotify keeps one queue, in order).
            chmod(config, 0o600)
            #expect(try await eventually { log.changes.last?.events == .change })
            let changes = log.changes
            #expect(changes.count == 6, "\(changes)")
            for change in changes.prefix(5) {
                #expect(change == UVFileChange(path: config, name: "config.json", events: .rename, count: 1, exists: true))
            }
            #expect(log.callsOffTheLoopThread == 0)
            watching.cancel()
            try await loop.shutdown().get()
        }

        @Test func aDirectoryWatchSeesOneChangePerAtomicWriteAndNoTemporaryFile() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let loop = try startedLoop()
            let log = ChangeLog()
            let watching = loop.watchChanges(of: dir.path) { change in log.record(change, onLoop: loop.isOnLoopThread) }
            _ = try await onLoopThread(loop) {}
            try await fs.writeText(dir("a.txt"), "one").get()
            try await fs.writeText(dir("a.txt"), "two").get()
            try await fs.writeText(dir("b.txt"), "three").get()
            writeInPlace(dir("sentinel"), "")  // created, then nothing: a lone rename
            #expect(try await eventually { log.changes.contains { $0.name == "sentinel" } })
            // One kernel event per atomic write, of the target's name (two writes read in one
            // poll are one change that counts two).
            var events: [String: Int] = [:]
            for change in log.changes { events[change.name ?? "nil", default: 0] += change.count }
            #expect(events == ["a.txt": 2, "b.txt": 1, "sentinel": 1], "\(log.changes)")
            #expect(log.changes.allSatisfy { $0.events == .rename })
            #expect(log.changes.allSatisfy { $0.path == dir($0.name ?? "") && $0.exists })
            watching.cancel()
            try await loop.shutdown().get()
        }

        @Test func nextChangeFulfilsOnTheLoopThreadWithAnInPlaceWrite() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let log = dir("app.log")
            writeInPlace(log, "start\n")
            let loop = try startedLoop()
            let next = loop.nextChange(of: log)
            let onLoop = next.then(on: loop) { change in (change, loop.isOnLoopThread) }
            _ = try await onLoopThread(loop) {}
            writeInPlace(log, "more\n")
            let (change, wasOnLoop) = try await onLoop.get()
            #expect(wasOnLoop)
            #expect(change.path == log && change.name == "app.log" && change.events.contains(.change) && change.exists)
            // One-shot: the watch is gone once the promise is fulfilled.
            #expect(try await liveWatches(loop) == 0)
            try await loop.shutdown().get()
        }

        @Test func removingAndRecreatingTheWatchedFileAreChangesThatSayWhetherItExists() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let file = dir("data")
            writeInPlace(file, "x")
            let loop = try startedLoop()
            let log = ChangeLog()
            let watching = loop.watchChanges(of: file) { change in log.record(change, onLoop: true) }
            _ = try await onLoopThread(loop) {}
            unlink(file)
            #expect(try await eventually { log.count >= 1 })
            #expect(log.changes[0].events == .rename && !log.changes[0].exists)
            try await fs.writeText(file, "back").get()
            #expect(try await eventually { log.changes.last?.exists == true })
            #expect(log.changes.last?.events.contains(.rename) == true)
            #expect(watching.isPending)
            watching.cancel()
            try await loop.shutdown().get()
        }

        @Test func theSequenceDeliversChangesAndEndsWhenTheTaskIsCancelled() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let loop = try startedLoop()
            let seen = ChangeLog()
            let reader = Task {
                for try await change in loop.changes(of: dir.path) {
                    seen.record(change, onLoop: false)
                }
                return "ended"
            }
            // The watch starts when the iterator is made: write until the reader sees one.
            #expect(
                try await eventually {
                    if seen.count == 0 { writeInPlace(dir("ping"), "p") }
                    return seen.count > 0
                })
            #expect(try await liveWatches(loop) == 1)
            reader.cancel()
            #expect(try await reader.value == "ended")
            #expect(try await eventuallyAsync { try await liveWatches(loop) == 0 })
            try await loop.shutdown().get()
        }

        @Test func breakingOutOfTheSequenceStopsTheWatch() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let loop = try startedLoop()
            let stopped = Flag()
            let reader = Task {
                for try await change in loop.changes(of: dir.path) where change.name == "stop" {
                    break
                }
                stopped.set()
            }
            #expect(
                try await eventually {
                    writeInPlace(dir("stop"), "")
                    return stopped.isSet
                })
            try await reader.value
            #expect(try await eventuallyAsync { try await liveWatches(loop) == 0 })
            try await loop.shutdown().get()
        }

        @Test func aPendingWatchKeepsRunGoingUnlessToldNotTo() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let file = dir("f")
            writeInPlace(file, "")
            // Not kept alive: run() returns with the watch still pending.
            let background = try UVLoop()
            let quiet = background.nextChange(of: file, keepsLoopAlive: false)
            let returned = try await onNewThread {
                background.run()
                return true
            }.get()
            #expect(returned && quiet.isPending)
            try await background.shutdown().get()
            await expectUVError(.loopClosed) { try await quiet.get() }

            // Kept alive: run() returns only after the change.
            let loop = try UVLoop()
            let change = loop.nextChange(of: file)
            let ran = onNewThread { loop.run() }
            // Started once libuv holds the watch: nothing else changes the directory.
            #expect(
                try await eventually {
                    writeInPlace(file, "now")
                    return !change.isPending
                })
            try await ran.get()
            #expect(try await change.get().events.contains(.change))
            try await loop.shutdown().get()
        }
    }
}

/// The file's inode number, or `nil` when it is missing.
func inode(of path: String) -> UInt64? {
    var info = stat()
    return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
}
