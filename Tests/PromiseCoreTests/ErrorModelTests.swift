import PromiseCore
import PromiseTestSupport
import Testing

/// ``PromiseError`` has the shape every product's error has (``PromiseLibraryError``).
@Suite struct ErrorModelTests {
    @Test func promiseErrorFollowsTheModel() {
        expectTheErrorModel { PromiseError(.timedOut, message: "still pending after 2 s; the work behind it was told to stop", underlying: $0) }
        #expect(PromiseError(.timedOut, message: "a") != PromiseError(.deadlock, message: "a"))
        #expect(PromiseError(.timedOut, message: "a") != PromiseError(.timedOut, message: "b"))
    }
}

/// The example of ErrorHandling.md's "One shape for every product's errors", as written there.
func summary(of error: any Error) -> String {
    guard let error = error as? any PromiseLibraryError else { return "\(error)" }
    return error.underlying.map { "\(error.message) (because: \($0))" } ?? error.message
}

@Suite struct ErrorModelArticleTests {
    @Test func theArticlesSummaryReadsAnyProductsError() {
        let timedOut = PromiseError(.timedOut, message: "still pending after 1 s", underlying: SampleCause("slow disk"))
        #expect(summary(of: timedOut) == "still pending after 1 s (because: sample cause: slow disk)")
        #expect(summary(of: PromiseError(.deadlock, message: "waited on its own queue")) == "waited on its own queue")
        #expect(summary(of: SampleCause("other")) == "sample cause: other")
    }
}
