import Foundation
@testable import PromiseUV
import PromiseTestSupport
import Testing

/// `recursive: true` on real directory trees and real loops: what is below the watched
/// directory at any depth, directories created, moved in, moved away, removed and renamed
/// while watched, symbolic links, a tree of 10 000 directories, cancellation, shutdown and a
/// dropped iterator.
extension InotifyTests {
    @Suite struct RecursiveWatchTests {
        /// Makes `path` and its missing parents.
        static func makeDirectories(_ path: String) throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }

        /// A loop on a thread of its own, and a recursive watch of `path` that records each
        /// change and whether it came on the loop thread.
        static func recordedWatch(of path: String) throws -> (UVLoop, ChangeLog, Promise<Void>) {
            let loop = try startedLoop()
            let log = ChangeLog()
            let watching = loop.watchChanges(of: path, recursive: true) { change in log.record(change, onLoop: loop.isOnLoopThread) }
            return (loop, log, watching)
        }

        /// How many watches the kernel holds on `loop`'s inotify descriptor.
        static func kernelWatches(_ loop: UVLoop) async throws -> Int {
            kernelWatchCount(try await onLoopThread(loop) { loop.core.inotifyDescriptor })
        }

        /// Waits until `log` holds a change of `path` that matches `exists`.
        static func sees(_ log: ChangeLog, _ path: String, exists: Bool = true) async throws -> Bool {
            try await eventually(.seconds(60)) { log.changes.contains { $0.path == path && $0.exists == exists } }
        }

        @Test func changesAtEveryDepthAreReportedWithTheirPaths() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            try Self.makeDirectories(dir("a/b/c"))
            let (loop, log, watching) = try Self.recordedWatch(of: dir.path)
            let plainLog = ChangeLog()
            let plain = loop.watchChanges(of: dir.path) { change in plainLog.record(change, onLoop: true) }
            let next = loop.nextChange(of: dir.path, recursive: true)
            #expect(try await Self.kernelWatches(loop) == 4, "the directory and its three below")

            writeInPlace(dir("a/b/c/deep.txt"), "deep")
            #expect(try await Self.sees(log, dir("a/b/c/deep.txt")))
            let first = try await next.get()
            #expect(first.path == dir("a/b/c/deep.txt"))
            #expect(first.name == "deep.txt")
            writeInPlace(dir("a/middle.txt"), "middle")
            writeInPlace(dir("top.txt"), "top")
            #expect(try await Self.sees(log, dir("a/middle.txt")))
            #expect(try await Self.sees(log, dir("top.txt")))
            #expect(try await eventually(.seconds(60)) { plainLog.changes.contains { $0.name == "top.txt" } })
            let deep = try #require(log.changes.first { $0.path == dir("a/b/c/deep.txt") })
            #expect(deep.name == "deep.txt")
            #expect(deep.events.contains(.rename))
            #expect(log.callsOffTheLoopThread == 0)
            // A subdirectory's own attributes: a change of its name in its parent, not of an
            // entry inside it named after it.
            #expect(chmod(dir("a/b"), 0o700) == 0)
            writeInPlace(dir("a/b/sentinel"), "")
            #expect(try await Self.sees(log, dir("a/b/sentinel")))
            #expect(log.changes.contains { $0.path == dir("a/b") && $0.events.contains(.change) }, "\(log.changes)")
            #expect(!log.changes.contains { $0.path == dir("a/b/b") }, "\(log.changes)")
            // The same kernel queue carried the deeper events first: the plain watch saw them
            // and left them out.
            #expect(plainLog.changes.allSatisfy { $0.name == "top.txt" || $0.name == "a" }, "\(plainLog.changes)")

            watching.cancel()
            plain.cancel()
            #expect(try await liveWatches(loop) == 0)
            #expect(try await Self.kernelWatches(loop) == 0, "every directory's watch is removed")
            try await loop.shutdown().get()
        }

        @Test func aDirectoryCreatedWhileWatchedIsWatchedAndWhatItAlreadyHeldIsReported() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            let (loop, log, watching) = try Self.recordedWatch(of: dir.path)
            #expect(try await Self.kernelWatches(loop) == 1)
            // Made faster than the loop can watch each level: what lands before a directory's
            // watch is found by listing it.
            for round in 0..<20 {
                try Self.makeDirectories(dir("new\(round)/inner/most"))
                writeInPlace(dir("new\(round)/inner/most/file.txt"), "\(round)")
            }
            for round in 0..<20 {
                #expect(try await Self.sees(log, dir("new\(round)/inner/most/file.txt")), "round \(round): \(log.changes)")
            }
            let fd = try await onLoopThread(loop) { loop.core.inotifyDescriptor }
            #expect(try await eventually(.seconds(60)) { kernelWatchCount(fd) == 61 }, "the directory and 20 × 3 below")
            // And what changes in them later.
            writeInPlace(dir("new7/inner/later.txt"), "later")
            #expect(try await Self.sees(log, dir("new7/inner/later.txt")))
            watching.cancel()
            #expect(try await Self.kernelWatches(loop) == 0)
            try await loop.shutdown().get()
        }

        @Test func aDirectoryMovedInIsListedAndWatched() async throws {
            let dir = try WatchDirectory()
            let outside = try WatchDirectory()
            defer {
                dir.cleanUp()
                outside.cleanUp()
            }
            try Self.makeDirectories(outside("x/y"))
            writeInPlace(outside("x/y/one"), "1")
            writeInPlace(outside("x/two"), "2")
            let (loop, log, watching) = try Self.recordedWatch(of: dir.path)
            #expect(try await Self.kernelWatches(loop) == 1)
            #expect(rename(outside("x"), dir("x")) == 0)
            for path in ["x", "x/y", "x/y/one", "x/two"] {
                #expect(try await Self.sees(log, dir(path)), "\(path): \(log.changes)")
            }
            #expect(try await Self.kernelWatches(loop) == 3)
            writeInPlace(dir("x/y/three"), "3")
            #expect(try await Self.sees(log, dir("x/y/three")))
            watching.cancel()
            try await loop.shutdown().get()
        }

        @Test func aDirectoryMovedAwayOrRemovedStopsItsWatchesAndOneMadeAgainIsWatched() async throws {
            let dir = try WatchDirectory()
            let outside = try WatchDirectory()
            defer {
                dir.cleanUp()
                outside.cleanUp()
            }
            try Self.makeDirectories(dir("a/b"))
            try Self.makeDirectories(dir("gone/deeper"))
            let (loop, log, watching) = try Self.recordedWatch(of: dir.path)
            #expect(try await Self.kernelWatches(loop) == 5)

            // Moved away: the kernel would keep watching the moved directories; the watch stops them.
            #expect(rename(dir("a"), outside("a")) == 0)
            #expect(try await Self.sees(log, dir("a"), exists: false))
            let fd = try await onLoopThread(loop) { loop.core.inotifyDescriptor }
            #expect(try await eventually(.seconds(60)) { kernelWatchCount(fd) == 3 })
            // Removed: the kernel drops its watches itself; the watch forgets them.
            _ = system("rm -rf '\(dir("gone"))'")
            #expect(try await Self.sees(log, dir("gone"), exists: false))
            writeInPlace(outside("a/b/after-the-move"), "")
            // Made again under the old name: watched again.
            try Self.makeDirectories(dir("a/b"))
            writeInPlace(dir("a/b/again"), "")
            #expect(try await Self.sees(log, dir("a/b/again")))
            #expect(try await Self.kernelWatches(loop) == 3)
            #expect(!log.changes.contains { $0.path.hasPrefix(outside.path) || $0.path.hasSuffix("after-the-move") }, "\(log.changes)")
            watching.cancel()
            try await loop.shutdown().get()
        }

        @Test func aDirectoryRenamedInsideTheTreeIsReportedUnderItsNewName() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            try Self.makeDirectories(dir("old/sub"))
            let (loop, log, watching) = try Self.recordedWatch(of: dir.path)
            #expect(try await Self.kernelWatches(loop) == 3)
            #expect(rename(dir("old"), dir("new")) == 0)
            #expect(try await Self.sees(log, dir("old"), exists: false))
            #expect(try await Self.sees(log, dir("new")))
            writeInPlace(dir("new/sub/file"), "")
            #expect(try await Self.sees(log, dir("new/sub/file")))
            #expect(!log.changes.contains { $0.path.hasPrefix(dir("old/")) }, "\(log.changes)")
            #expect(try await Self.kernelWatches(loop) == 3)
            watching.cancel()
            try await loop.shutdown().get()
        }

        @Test func symbolicLinksToDirectoriesAreNotFollowed() async throws {
            let dir = try WatchDirectory()
            let outside = try WatchDirectory()
            defer {
                dir.cleanUp()
                outside.cleanUp()
            }
            #expect(symlink(outside.path, dir("link")) == 0)
            #expect(symlink(dir.path, dir("loop")) == 0, "a link to the watched directory itself")
            let (loop, log, watching) = try Self.recordedWatch(of: dir.path)
            #expect(try await Self.kernelWatches(loop) == 1)
            #expect(symlink(outside.path, dir("later-link")) == 0)
            #expect(try await Self.sees(log, dir("later-link")))
            writeInPlace(outside("through-the-link"), "")
            writeInPlace(dir("sentinel"), "")
            #expect(try await Self.sees(log, dir("sentinel")))
            #expect(!log.changes.contains { $0.path.hasSuffix("through-the-link") }, "\(log.changes)")
            #expect(try await Self.kernelWatches(loop) == 1)
            watching.cancel()
            try await loop.shutdown().get()
        }

        @Test func aTreeOfTenThousandDirectoriesIsWatchedAndReleased() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            for top in 0..<100 {
                #expect(mkdir(dir("d\(top)"), 0o755) == 0)
                for inner in 0..<99 { #expect(mkdir(dir("d\(top)/e\(inner)"), 0o755) == 0) }
            }
            let (loop, log, watching) = try Self.recordedWatch(of: dir.path)
            #expect(try await Self.kernelWatches(loop) == 10_001)
            writeInPlace(dir("d57/e42/deep"), "")
            #expect(try await Self.sees(log, dir("d57/e42/deep")))
            // Removed as a whole: ten thousand removals, each forgetting its directory.
            _ = system("rm -rf '\(dir("d0"))' '\(dir("d1"))'")
            writeInPlace(dir("sentinel"), "")
            #expect(try await Self.sees(log, dir("sentinel")))
            #expect(try await Self.sees(log, dir("d1"), exists: false))
            #expect(try await Self.kernelWatches(loop) == 10_001 - 200)
            watching.cancel()
            #expect(try await Self.kernelWatches(loop) == 0)
            try await loop.shutdown().get()
        }

        @Test func cancellingBeforeTheStartWatchesNothing() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            try Self.makeDirectories(dir("a/b"))
            let loop = try UVLoop()
            let watching = loop.watchChanges(of: dir.path, recursive: true) { _ in Issue.record("a cancelled watch delivered") }
            watching.cancel()
            try loop.startThread()
            await #expect(throws: CancellationError.self) { try await watching.get() }
            #expect(try await onLoopThread(loop) { loop.core.inotifyDescriptor } == -1, "no inotify instance was opened")
            try await loop.shutdown().get()
        }

        @Test func shutdownEndsARecursiveWatchAndClosesEveryHandle() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            try Self.makeDirectories(dir("a/b/c"))
            let loop = try startedLoop()
            let watching = loop.watchChanges(of: dir.path, recursive: true) { _ in }
            #expect(try await Self.kernelWatches(loop) == 4)
            // A loop whose handles are not all closed never finishes its shutdown.
            let shutdown = loop.shutdown()
            #expect(try await eventually(.seconds(60)) { !shutdown.isPending }, "the shutdown waits for a handle nobody closes")
            await expectUVError(.loopClosed) { try await watching.get() }
        }

        @Test func droppingTheIteratorStopsEveryWatch() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            try Self.makeDirectories(dir("a/b"))
            let loop = try startedLoop()
            let fd: Int32
            do {
                var iterator = loop.changes(of: dir.path, recursive: true).makeAsyncIterator()
                #expect(try await Self.kernelWatches(loop) == 3)
                fd = try await onLoopThread(loop) { loop.core.inotifyDescriptor }
                writeInPlace(dir("a/b/file"), "")
                #expect(try await iterator.next()?.path == dir("a/b/file"))
            }
            #expect(try await eventually(.seconds(60)) { kernelWatchCount(fd) == 0 })
            #expect(try await liveWatches(loop) == 0)
            try await loop.shutdown().get()
        }

        @Test func aFileWatchedRecursivelyIsWatchedAsAFile() async throws {
            let dir = try WatchDirectory()
            defer { dir.cleanUp() }
            try Self.makeDirectories(dir("sibling"))
            writeInPlace(dir("file"), "")
            let loop = try startedLoop()
            let next = loop.nextChange(of: dir("file"), recursive: true)
            #expect(try await Self.kernelWatches(loop) == 1, "the file's directory only")
            writeInPlace(dir("sibling/other"), "")
            writeInPlace(dir("file"), "changed")
            let change = try await next.get()
            #expect(change.path == dir("file"))
            try await loop.shutdown().get()
        }
    }
}
