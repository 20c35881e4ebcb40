import Dispatch
import PromiseCore
import Testing


/// README-style snippets written without closure types: they must compile and pick the
/// overload a reader expects.
@Suite struct InferenceTests {
    @Test func thenOverloadsPickTheExpectedShape() throws {
        let start = Promise(20)
        let mapped = start.then { $0 + 1 }
        let flat = start.then { value in Promise(value * 2) }
        let passthrough = start.then { value in print("got", value) }
        let multi = start.then { value in
            let doubled = value * 2
            return String(doubled)
        }
        #expect(try awaitPromise(mapped) == 21)
        #expect(try awaitPromise(flat) == 40)
        #expect(try awaitPromise(passthrough) == 20)
        #expect(try awaitPromise(multi) == "40")
        let inline = start.then(on: .inline) { $0 + 1 }
        #expect(inline.value == 21)
        let fromDo = Promise { 42 }
        #expect(try awaitPromise(fromDo) == 42)
        let fromAsync = Promise { () async throws -> Int in 7 }
        #expect(try awaitPromise(fromAsync) == 7)
        let recovered = Promise<Int>(SampleError()).recover { _ in 0 }
        #expect(try awaitPromise(recovered) == 0)
        let both = all(Promise(1), Promise("two"), Promise(3.0))
        let tuple = try awaitPromise(both)
        #expect(tuple.0 == 1 && tuple.1 == "two" && tuple.2 == 3.0)
        let settled = any([Promise(1), Promise<Int>(SampleError())])
        #expect(try awaitPromise(settled).count == 2)
    }
}
