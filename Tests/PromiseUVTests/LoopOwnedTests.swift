import PromiseTestSupport
import Testing

@testable import PromiseUV

/// PromiseUV's own loop-confined objects reached from other threads: on the loop thread the
/// object, anywhere else the program stops.
@Suite struct LoopOwnedTests {
    final class Object {
        var touches = 0
    }

    @Test func theLoopThreadReachesTheObject() async throws {
        let loop = try startedLoop("uv-confined")
        let object = Object()
        let identity = ObjectIdentifier(object)
        let confined = LoopOwned(object, core: loop.core)
        let (same, sameResolver) = Promise<Bool>.pending()
        loop.execute {
            confined.value.touches += 1
            sameResolver.fulfill(ObjectIdentifier(confined.value) == identity && confined.value.touches == 1)
        }
        #expect(try await same.get())
        try await loop.shutdown().get()
    }

    @Test func anotherThreadStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let loop = try startedLoop("uv-confined")
            let confined = LoopOwned(Object(), core: loop.core)
            confined.value.touches += 1
        }
    }

    @Test func aLoopNoThreadRunsStopsTheProgramToo() async {
        await #expect(processExitsWith: .failure) {
            let loop = try UVLoop()
            let confined = LoopOwned(Object(), core: loop.core)
            _ = confined.value
        }
    }

    /// What a loop-confined object queues for later on its own loop.
    final class Log {
        var entries: [String] = []
    }

    @Test func theLoopThreadQueuesWorkThatUsesLoopConfinedObjects() async throws {
        let loop = try startedLoop("uv-confined")
        let (entries, resolver) = Promise<[String]>.pending()
        loop.execute {
            let log = Log()
            let queued = loop.core.submitOnLoopThread(.late) {
                log.entries.append("queued")
                resolver.fulfill(log.entries)
            }
            log.entries.append(queued ? "current" : "refused")
        }
        // The queued work runs after the current callback, not inside it.
        #expect(try await entries.get() == ["current", "queued"])
        try await loop.shutdown().get()
    }

    @Test func queueingSuchWorkFromAnotherThreadStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let loop = try startedLoop("uv-confined")
            _ = loop.core.submitOnLoopThread(.late) {}
        }
    }
}
