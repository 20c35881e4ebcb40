import PromiseCore
import PromiseTestSupport
import Testing

/// `DroppedOwner`, the one place the deinit policy's report is worded: every owner's
/// `notShutDown` report names its type, which one it was, the call it missed and what was lost.
@Suite struct DroppedOwnerTests {
    @Test func theReportNamesTheOwnerTheCallAndWhatWasLost() {
        let loop = DroppedOwner("UVLoop", named: "thread 'api-loop'", call: "shutdown()")
        let lost = DroppedOwner.rejected(
            [(2, "pending timer", "pending timers"), (0, "pool job", "pool jobs"), (1, "signal watch", "signal watches")], code: "loopClosed")
        #expect(lost == "2 pending timers and 1 signal watch were rejected with loopClosed")
        #expect(
            loop.message(lost ?? "")
                == "a UVLoop (thread 'api-loop') was deallocated without shutdown() and shut down as shutdown() does: 2 pending timers and 1 signal watch were rejected with loopClosed. Keep the UVLoop until its work is done, then call shutdown()"
        )
        let database = DroppedOwner("SQLiteDatabase", named: "'/tmp/app.sqlite'", call: "close()")
        #expect(
            database.message("closing it failed: disk I/O error").hasPrefix(
                "an SQLiteDatabase ('/tmp/app.sqlite') was deallocated without close() and closed as close() does: closing it failed"))
    }

    @Test func oneKindOrNothingIsWordedToo() {
        #expect(DroppedOwner.rejected(1, "request in flight", "requests in flight", code: "shutdown") == "1 request in flight was rejected with shutdown")
        #expect(DroppedOwner.rejected(3, "request in flight", "requests in flight", code: "shutdown") == "3 requests in flight were rejected with shutdown")
        #expect(DroppedOwner.rejected([(0, "timer", "timers")], code: "loopClosed") == nil, "nothing lost, nothing to report")
        #expect(
            DroppedOwner.rejected([(1, "a", "as"), (1, "b", "bs"), (2, "c", "cs")], code: "x") == "1 a, 1 b and 2 cs were rejected with x")
    }

    @Test func theReportIsANotShutDownDiagnostic() {
        NotShutDownRecorder.install
        let marker = "dropped-owner-\(UInt32.random(in: 0...UInt32.max))"
        let owner = DroppedOwner("FileIOPool", named: marker, call: "shutdown()")
        owner.report(PromiseError(.contextInvalidated, message: owner.message("nothing")))
        #expect(NotShutDownRecorder.reports(mentioning: marker).count == 1)
    }
}
