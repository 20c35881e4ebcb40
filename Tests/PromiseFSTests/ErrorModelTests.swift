import PromiseFS
import PromiseTestSupport
import Testing

/// `FSError` has the shape every product's error has (`PromiseLibraryError`).
@Suite struct FSErrorModelTests {
    @Test func fsErrorFollowsTheModel() {
        expectTheErrorModel { FSError(.permissionDenied, operation: "open", path: "/etc/shadow", activity: "opening /etc/shadow for reading", underlying: $0) }
        let error = FSError(.permissionDenied, operation: "open", path: "/etc/shadow", activity: "opening /etc/shadow for reading")
        #expect(error.message == "permission denied opening /etc/shadow for reading")
        #expect(error.description == error.message)
        #expect(FSError.Code.shutdown == .poolUnavailable)
    }
}
