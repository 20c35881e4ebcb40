import Dispatch
import PromiseCore
import PromiseTesting
import Testing

/// Promises/A+ 2.2.6: `then` may be called many times on one promise; the callbacks run in
/// the order of their `then` calls (here: on one serial context).
@Suite("A+ 2.2.6 then: many callbacks, registration order")
struct APlus2_2_6_OrderTests {
    @Test("2.2.6.1 fulfilled: every then callback runs once, in registration order")
    func fulfilledCallbacksRunInOrder() {
        let context = ManualContext()
        let (promise, resolver) = Promise<Int>.pending()
        let log = APlusRecorder<Int>()
        var children: [Promise<Int>] = []
        for index in 0..<6 {
            children.append(
                promise.then(on: context) { (value: Int) -> Int in
                    log.record(index)
                    return value + index
                })
        }
        resolver.fulfill(10)
        context.runUntilIdle()
        #expect(log.events == [0, 1, 2, 3, 4, 5])
        #expect(children.map(\.value) == [10, 11, 12, 13, 14, 15])
    }

    @Test("2.2.6.2 rejected: every catch/recover callback runs once, in registration order")
    func rejectedCallbacksRunInOrder() {
        let context = ManualContext()
        let (promise, resolver) = Promise<Int>.pending()
        let log = APlusRecorder<String>()
        promise.catch(on: context) { _ in log.record("catch 0") }
        _ = promise.recover(on: context) { _ in
            log.record("recover 1")
            return 1
        }
        let skipped = promise.then(on: context) { _ in log.record("then (skipped)") }
        promise.catch(on: context) { _ in log.record("catch 2") }
        let always = promise.always(on: context) { log.record("always 3") }
        promise.catch(on: context) { _ in log.record("catch 4") }
        resolver.reject(APlusError(1))
        context.runUntilIdle()
        #expect(log.events == ["catch 0", "recover 1", "catch 2", "always 3", "catch 4"])
        #expect(skipped.aplusError == APlusError(1))
        #expect(always.aplusError == APlusError(1))
    }

    @Test("2.2.6.1 fulfilled: a then added while the callbacks run goes after the ones already there")
    func fulfilledCallbackAddedWhileRunningGoesLast() {
        let context = ManualContext()
        let (promise, resolver) = Promise<Int>.pending()
        let log = APlusRecorder<String>()
        promise.then(on: context) { _ in
            log.record("0")
            promise.then(on: context) { _ in log.record("added by 0") }
        }
        promise.then(on: context) { _ in log.record("1") }
        promise.then(on: context) { _ in log.record("2") }
        resolver.fulfill(1)
        context.runUntilIdle()
        #expect(log.events == ["0", "1", "2", "added by 0"])
    }

    @Test("2.2.6.2 rejected: a catch added while the callbacks run goes after the ones already there")
    func rejectedCallbackAddedWhileRunningGoesLast() {
        let context = ManualContext()
        let (promise, resolver) = Promise<Int>.pending()
        let log = APlusRecorder<String>()
        promise.catch(on: context) { _ in
            log.record("0")
            promise.catch(on: context) { _ in log.record("added by 0") }
        }
        promise.catch(on: context) { _ in log.record("1") }
        promise.catch(on: context) { _ in log.record("2") }
        resolver.reject(APlusError(1))
        context.runUntilIdle()
        #expect(log.events == ["0", "1", "2", "added by 0"])
    }

    @Test("2.2.6 resolved inside a turn of the same context (fast path): order kept, late additions last")
    func orderKeptOnTheSameTurnFastPath() {
        for rejecting in [false, true] {
            let context = ManualContext()
            let (promise, resolver) = Promise<Int>.pending()
            let log = APlusRecorder<String>()
            let derived = APlusRecorder<Promise<Int>>()
            for index in 0..<3 {
                derived.record(
                    promise.always(on: context) {
                        log.record("\(index)")
                        if index == 0 {
                            derived.record(promise.always(on: context) { log.record("added by 0") })
                        }
                    })
            }
            Promise(0).then(on: context) { _ in
                if rejecting { resolver.reject(APlusError(1)) } else { resolver.fulfill(1) }
                log.record("resolver returned")
            }
            context.runUntilIdle()
            #expect(log.events == ["resolver returned", "0", "1", "2", "added by 0"], "rejecting: \(rejecting)")
            #expect(derived.count == 4)
            for promise in derived.events {
                #expect(rejecting ? promise.aplusError == APlusError(1) : promise.value == 1)
            }
        }
    }

    @Test("2.2.6 on a real serial queue: 200 callbacks run in registration order, late addition last")
    func realSerialQueueKeepsOrder() throws {
        for rejecting in [false, true] {
            let queue = DispatchQueue(label: "aplus.2.2.6")
            let (promise, resolver) = Promise<Int>.pending()
            let log = APlusRecorder<Int>()
            let lateAdded = APlusRecorder<Promise<Int>>()
            var children: [Promise<Int>] = []
            for index in 0..<200 {
                children.append(
                    promise.always(on: queue) {
                        log.record(index)
                        if index == 0 {
                            lateAdded.record(promise.always(on: queue) { log.record(-1) })
                        }
                    })
            }
            if rejecting { resolver.reject(APlusError(1)) } else { resolver.fulfill(1) }
            for child in children {
                _ = try? awaitPromise(child, timeout: .seconds(5))
            }
            let late = try #require(lateAdded.events.first)
            _ = try? awaitPromise(late, timeout: .seconds(5))
            #expect(log.events == Array(0..<200) + [-1], "rejecting: \(rejecting)")
            #expect(children.allSatisfy { !$0.isPending })
        }
    }
}
