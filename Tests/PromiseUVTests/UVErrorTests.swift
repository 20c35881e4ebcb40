import PromiseUV
import Testing

@Suite struct UVErrorTests {
    @Test func codesCarryLibuvsNamesAndMessages() {
        #expect(UVError.Code.busy.name == "busy")
        #expect(UVError.Code.busy.libuvName == "EBUSY")
        #expect(UVError.Code.busy.message == "resource busy or locked")
        #expect(UVError.Code.canceled.libuvName == "ECANCELED")
        #expect(UVError.Code.invalidArgument.libuvName == "EINVAL")
        #expect(UVError.Code.outOfMemory.libuvName == "ENOMEM")
        #expect(UVError.Code.tooManyOpenFiles.libuvName == "EMFILE")
        #expect(UVError.Code.tryAgain.libuvName == "EAGAIN")
        #expect(UVError.Code.tryAgain.name == "tryAgain")
        #expect(UVError.Code.loopClosed.name == "loopClosed")
        #expect(UVError.Code.loopClosed.libuvName == nil)
        #expect(UVError.Code(uvCode: -104).name == "ECONNRESET")
        #expect(UVError.Code(uvCode: -32) == .brokenPipe)
        #expect(UVError.Code.brokenPipe.name == "brokenPipe")
        #expect(UVError.Code.brokenPipe.libuvName == "EPIPE")
        #expect(UVError.Code.outputLimitExceeded.name == "outputLimitExceeded")
        #expect(UVError.Code.processFailed.libuvName == nil)
        #expect(UVError.Code.isADirectory.libuvName == "EISDIR")
        #expect(UVError.Code.notADirectory.libuvName == "ENOTDIR")
        #expect(UVError.Code(uvCode: -2) == .noSuchFileOrDirectory)
        #expect(UVError.Code.noSuchFileOrDirectory.name == "noSuchFileOrDirectory")
        #expect(UVError.Code.noSuchFileOrDirectory.libuvName == "ENOENT")
        #expect(UVError.Code.permissionDenied.libuvName == "EACCES")
        #expect(UVError.Code.watchLimitReached.name == "watchLimitReached")
        #expect(UVError.Code.watchLimitReached.libuvName == nil)
        #expect(UVError.Code.watchLimitReached.message == "the inotify watch limit is reached")
        #expect(UVError.Code(uvCode: -999_999).name.contains("999999"))
    }

    @Test func descriptionIsOneActionableLine() {
        let error = UVError(.busy, operation: "uv_loop_close", detail: "1 handle still open")
        #expect(error.message == "uv_loop_close failed: EBUSY (resource busy or locked) — 1 handle still open")
        #expect(error.description == "UVError.busy (libuv -16): " + error.message)
        #expect(!error.description.contains("\n"))
        #expect(UVError(.loopClosed, operation: "after").message == "after failed: loopClosed (the UVLoop is shut down)")
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
