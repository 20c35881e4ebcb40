import PromiseTestSupport
import PromiseUV
import Testing

/// `UVError` has the shape every product's error has (`PromiseLibraryError`).
@Suite struct UVErrorModelTests {
    @Test func uvErrorFollowsTheModel() {
        expectTheErrorModel { UVError(.busy, operation: "uv_loop_close", detail: "1 handle still open", underlying: $0) }
        let error = UVError(.busy, operation: "uv_loop_close", detail: "1 handle still open")
        #expect(error.message == "uv_loop_close failed: EBUSY (resource busy or locked) — 1 handle still open")
        #expect(error.description == "UVError.busy (libuv -16): uv_loop_close failed: EBUSY (resource busy or locked) — 1 handle still open")
        let own = UVError(.loopClosed, operation: "after")
        #expect(own.description == "UVError.loopClosed: after failed: loopClosed (the UVLoop is shut down)")
        #expect(own.code.uvCode == nil && own.code.libuvName == nil && error.code.uvCode == -16)
        #expect(UVError.Code.invalidArgument.name == "invalidArgument" && UVError.Code.loopClosed.name == "loopClosed")
    }
}
