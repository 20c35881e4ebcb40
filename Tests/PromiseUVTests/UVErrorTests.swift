import PromiseUV
import Testing

@Suite struct UVErrorTests {
    @Test func codesCarryLibuvsNamesAndMessages() {
        #expect(UVError.Code.busy.name == "EBUSY")
        #expect(UVError.Code.busy.message == "resource busy or locked")
        #expect(UVError.Code.canceled.name == "ECANCELED")
        #expect(UVError.Code.invalidArgument.name == "EINVAL")
        #expect(UVError.Code.outOfMemory.name == "ENOMEM")
        #expect(UVError.Code.tooManyOpenFiles.name == "EMFILE")
        #expect(UVError.Code.tryAgain.name == "EAGAIN")
        #expect(UVError.Code.loopClosed.name == "loop closed")
        #expect(UVError.Code(rawValue: -999_999).name.contains("999999"))
    }

    @Test func descriptionIsOneActionableLine() {
        let error = UVError(.busy, operation: "uv_loop_close", detail: "1 handle still open")
        #expect(error.description == "uv_loop_close failed: EBUSY (resource busy or locked) — 1 handle still open")
        #expect(!error.description.contains("\n"))
        #expect(UVError(.loopClosed, operation: "after").description == "after failed: loop closed (the UVLoop is shut down)")
    }

    @Test func codesMatchInCatchClauses() {
        func classify(_ error: any Error) -> String {
            switch error {
            case UVError.Code.loopClosed: return "closed"
            case UVError.Code.busy: return "busy"
            default: return "other"
            }
        }
        #expect(classify(UVError(.loopClosed, operation: "after")) == "closed")
        #expect(classify(UVError(.busy, operation: "x")) == "busy")
        #expect(classify(TestFailure("x")) == "other")
    }
}
