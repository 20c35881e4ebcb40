import PromiseFS
import Testing

@Suite struct FSErrorTests {
    @Test func describesWhatFailedInOneLine() {
        let error = FSError(.permissionDenied, operation: "open", path: "/etc/shadow", activity: "opening /etc/shadow for reading")
        #expect(error.message == "permission denied opening /etc/shadow for reading")
        let unnamed = FSError(.init(errno: 9999), operation: "open", path: "/x")
        #expect(unnamed.code.name == "errno 9999")
        #expect(unnamed.description == "FSError.errno 9999 (errno 9999): unknown error 9999 open /x")
    }

    @Test func codesMatchInCatchClauses() {
        func classify(_ error: any Error) -> String {
            switch error {
            case FSError.Code.noSuchFileOrDirectory: return "missing"
            case FSError.Code.permissionDenied: return "denied"
            default: return "other"
            }
        }
        #expect(classify(FSError(.noSuchFileOrDirectory, operation: "open", path: "/a")) == "missing")
        #expect(classify(FSError(.permissionDenied, operation: "open", path: "/a")) == "denied")
        #expect(classify(CancellationError()) == "other")
    }
}
