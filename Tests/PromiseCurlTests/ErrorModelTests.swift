import PromiseCurl
import PromiseTestSupport
import Testing

/// `CurlError` has the shape every product's error has (`PromiseLibraryError`).
@Suite struct CurlErrorModelTests {
    @Test func curlErrorFollowsTheModel() {
        expectTheErrorModel {
            CurlError(.couldNotConnect, message: "connection refused by 127.0.0.1:9", method: "GET", url: "http://127.0.0.1:9/", underlying: $0)
        }
        let error = CurlError(.couldNotConnect, message: "refused", method: "GET", url: "http://127.0.0.1:9/")
        #expect(error != CurlError(.couldNotConnect, message: "refused", method: "POST", url: "http://127.0.0.1:9/"), "the method counts")
        #expect(CurlError.Code.invalidArgument == .invalidRequest && CurlError.Code.invalidArgument ~= CurlError(.invalidRequest, message: "bad URL"))
    }
}
