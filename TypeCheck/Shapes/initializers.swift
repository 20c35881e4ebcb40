// The `Promise { … }` and `Promise(…)` forms that need no annotation.
import PromiseCore

struct Failure: Error {}
func makePromise() -> Promise<Int> { Promise(1) }

let error = Failure()
let adopted = Promise { makePromise() }
let annotated = Promise { () -> Promise<Int> in makePromise() }
let thrown = Promise<Int> { throw error }
let (ofError, ofErrorResolver) = Promise<any Error>.pending()
let computed = Promise { 42 }
let onInline = Promise(on: .inline) { makePromise() }
let resolver = Promise<Int> { fulfill, _ in fulfill(1) }
let asynchronous = Promise { () async throws -> Int in 1 }

let checks: (Promise<Int>, Promise<Int>, Promise<Int>, Promise<any Error>, Promise<Int>, Promise<Int>, Promise<Int>, Promise<Int>) =
    (adopted, annotated, thrown, ofError, computed, onInline, resolver, asynchronous)
