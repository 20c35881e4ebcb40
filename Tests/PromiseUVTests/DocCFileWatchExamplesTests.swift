// swift-format-ignore-file
// (the article WatchingFiles.md quotes this file's code line for line, layout included)
import Foundation
import PromiseFS
import PromiseUV
import PromiseTestSupport
import Testing

/// The ```swift blocks of Sources/PromiseUV/PromiseUV.docc/WatchingFiles.md, each verbatim
/// between `// DocC: begin` and `// DocC: end`, run against a real temporary directory.
extension InotifyTests {
    @Suite struct DocCFileWatchExamplesTests {
        /// Writes `path` atomically every 20 ms until `stop` is set, from a thread of its own.
        private static func keepWriting(_ path: String, until stop: Flag) {
            let fs = PromiseFileSystem()
            Thread.detachNewThread {
                var round = 0
                while !stop.isSet {
                    round += 1
                    _ = try? awaitPromise(fs.writeText(path, "{\"round\": \(round)}"))
                    usleep(20_000)
                }
            }
        }

        @Test func theNextChange() async throws {
            let directory = try WatchDirectory()
            defer { directory.cleanUp() }
            let dir = directory.path
            try await PromiseFileSystem().writeText("\(dir)/config.json", "{}").get()
            let stop = Flag()
            defer { stop.set() }
            Self.keepWriting("\(dir)/config.json", until: stop)
            let seen = try await onNewThread {
                Result { () throws -> UVFileChange in
                    let loop = try UVLoop()
                    defer { _ = try? awaitPromise(loop.shutdown()) }
                    // DocC: begin
                    let config = "\(dir)/config.json"
                    let change = try loop.run(until: loop.nextChange(of: config))   // runs the loop until it changes
                    print(change)   // rename /tmp/…/config.json (exists, 1 event)
                    // DocC: end
                    return change
                }
            }.get().get()
            #expect(seen.path == "\(dir)/config.json" && seen.events == .rename && seen.exists)
        }

        @Test func aCallbackForEveryChange() async throws {
            let directory = try WatchDirectory()
            defer { directory.cleanUp() }
            let dir = directory.path
            let config = "\(dir)/config.json"
            try await PromiseFileSystem().writeText(config, "{}").get()
            let loop = try UVLoop()
            try loop.startThread()
            let reloads = ChangeLog()
            @Sendable func reload(from path: String) {
                reloads.record(UVFileChange(path: path, name: nil, events: .rename, exists: true), onLoop: loop.isOnLoopThread)
            }
            // DocC: begin
            let watching = loop.watchChanges(of: config) { change in
                guard change.exists else { return print("config removed; keeping the old one") }
                reload(from: change.path)
            }
            // DocC: end
            let stop = Flag()
            Self.keepWriting(config, until: stop)
            #expect(try await eventually { reloads.count >= 2 })
            stop.set()
            // DocC: begin
            watching.cancel()
            // DocC: end
            #expect(reloads.changes.allSatisfy { $0.path == config })
            #expect(reloads.callsOffTheLoopThread == 0)
            try await loop.shutdown().get()
        }

        @Test func theChangesAsASequence() async throws {
            let directory = try WatchDirectory()
            defer { directory.cleanUp() }
            let dir = directory.path
            let loop = try UVLoop()
            try loop.startThread()
            let rescans = ChangeLog()
            @Sendable func rescan(_ path: String) {
                rescans.record(UVFileChange(path: path, name: nil, events: .change, exists: true), onLoop: false)
            }
            let stop = Flag()
            defer { stop.set() }
            Self.keepWriting("\(dir)/done", until: stop)
            // DocC: begin
            for try await change in loop.changes(of: dir) {
                if change.name == nil { rescan(dir) } else { print(change) }
                if change.name == "done" { break }
            }
            // DocC: end
            #expect(rescans.count == 0)
            try await loop.shutdown().get()
        }

        @Test func aTree() async throws {
            let directory = try WatchDirectory()
            defer { directory.cleanUp() }
            let site = directory.path
            try FileManager.default.createDirectory(atPath: "\(site)/assets/css", withIntermediateDirectories: true)
            let loop = try UVLoop()
            try loop.startThread()
            let stop = Flag()
            defer { stop.set() }
            Self.keepWriting("\(site)/assets/css/main.css", until: stop)
            // DocC: begin
            for try await change in loop.changes(of: site, recursive: true) {
                print(change.path, change.exists ? "exists" : "gone")   // /srv/site/assets/css/main.css exists
                if change.name == "main.css" { break }
            }
            // DocC: end
            // Only the `break` ends the loop: the sequence has no end of its own. Leaving it
            // stopped the watch and its subdirectories' watches.
            #expect(try await eventuallyAsync { try await liveWatches(loop) == 0 })
            try await loop.shutdown().get()
        }

        @Test func errors() async throws {
            let directory = try WatchDirectory()
            defer { directory.cleanUp() }
            let dir = directory.path
            let loop = try UVLoop()
            try loop.startThread()
            let caught = Flag()
            // DocC: begin
            do {
                _ = try await loop.nextChange(of: "\(dir)/nothing-here").get()
            } catch UVError.Code.noSuchFileOrDirectory {
                print("nothing to watch")
            } catch UVError.Code.watchLimitReached {
                print("raise fs.inotify.max_user_watches")
            }
            // DocC: end
            do {
                _ = try await loop.nextChange(of: "\(dir)/nothing-here").get()
            } catch UVError.Code.noSuchFileOrDirectory {
                caught.set()
            }
            #expect(caught.isSet)
            try await loop.shutdown().get()
        }
    }
}
