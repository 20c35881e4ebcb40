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
}
