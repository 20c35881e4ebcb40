import PromiseTestSupport
import PromiseUV
import Testing

/// `UVError` has the shape every product's error has (`PromiseLibraryError`).
@Suite struct UVErrorModelTests {
    @Test func uvErrorFollowsTheModel() {
        expectTheErrorModel { UVError(.busy, operation: "uv_loop_close", detail: "1 handle still open", underlying: $0) }
        let error = UVError(.busy, operation: "uv_loop_close", detail: "1 handle still open")
        #expect(error.message == "uv_loop_close failed: EBUSY (resource busy or locked) — 1 handle still open")
        #expect(error.description == error.message)
        #expect(UVError.Code.shutdown == .loopClosed)
    }
}
