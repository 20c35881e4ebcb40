import Dispatch
import PromiseCore
import Testing


/// README-style snippets written without closure types: they must compile and pick the
/// overload a reader expects.
///
/// The test is `async` because it waits for a Task-backed promise: blocking a cooperative
/// thread in `awaitPromise` while that task needs the pool can deadlock a 2-core machine.
@Suite struct InferenceTests {
    @Test func thenOverloadsPickTheExpectedShape() async throws {
        let start = Promise(20)
        let mapped = start.then { $0 + 1 }
        let flat = start.then { value in Promise(value * 2) }
        let passthrough = start.then { value in print("got", value) }
        let multi = start.then { value in
            let doubled = value * 2
            return String(doubled)
        }
        #expect(try await mapped.get() == 21)
        #expect(try await flat.get() == 40)
        #expect(try await passthrough.get() == 20)
        #expect(try await multi.get() == "40")
        let inline = start.then(on: .inline) { $0 + 1 }
        #expect(inline.value == 21)
        let fromDo = Promise { 42 }
        #expect(try await fromDo.get() == 42)
        let fromAsync = Promise { () async throws -> Int in 7 }
        #expect(try await fromAsync.get() == 7)
        let recovered = Promise<Int>(SampleError()).recover { _ in 0 }
        #expect(try await recovered.get() == 0)
        let both = all(Promise(1), Promise("two"), Promise(3.0))
        let tuple = try await both.get()
        #expect(tuple.0 == 1 && tuple.1 == "two" && tuple.2 == 3.0)
        let settled = any([Promise(1), Promise<Int>(SampleError())])
        #expect(try await settled.get().count == 2)
    }
}
