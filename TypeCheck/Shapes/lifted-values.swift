// Chains that lift a value with `Promise(…)` inside `flatMap`, the way google/promises code does,
// after a first link that leaves the value type to be inferred.
import Dispatch
import PromiseCore

func fetch(_ x: Int) -> Promise<Int> { Promise(x) }
let i = 1
let q = DispatchQueue(label: "shapes")

let fetched = Promise(i).map { $0 + 1 }.flatMap { fetch($0) }.map { $0 - 3 }.map { $0 + 1 }.map { $0 - 3 }.map { $0 + 1 }
let lifted = Promise(i).map { $0 + 1 }.flatMap { Promise($0) }.map { $0 - 3 }.map { $0 + 1 }.map { $0 - 3 }.map { $0 + 1 }
let computed = Promise(i).map { $0 + 1 }.flatMap { Promise($0 * 2) }.map { $0 - 3 }.map { $0 + 1 }.map { $0 - 3 }
    .map { $0 + 1 }
let mixed = Promise(i).map { $0 + 1 }.flatMap { Promise($0 * 2) }.done { print($0) }.map { $0 - 3 }.recover { _ in 0 }
    .map(on: q) { $0 + 1 }.validate { $0 > 0 }.timeout(.seconds(1)).flatMap { x in Promise(x) }.always {}
let typed = Promise(i).map { $0 + 1 }.flatMap { Promise<Int>($0) }.map { $0 - 3 }.map { $0 + 1 }.map { $0 - 3 }
    .map { $0 + 1 }
let named = Promise(i).map { $0 + 1 }.flatMap { x in Promise(x) }.map { $0 - 3 }.map { $0 + 1 }.map { $0 - 3 }
    .map { $0 + 1 }
let pending = Promise(i).map { $0 + 1 }
    .flatMap { x in
        let (promise, resolver) = Promise<Int>.pending()
        resolver.fulfill(x * 2)
        return promise
    }
    .map { $0 - 3 }.map { $0 + 1 }.map { $0 - 3 }.map { $0 + 1 }
let ten = Promise(i).map { $0 + 1 }.flatMap { Promise($0 * 2) }.map { $0 - 3 }.map { $0 + 1 }.map { $0 - 3 }
    .map { $0 + 1 }.map { $0 - 3 }.map { $0 + 1 }.map { $0 - 3 }.map { $0 + 1 }
let caught = Promise(i).map { $0 + 1 }.flatMap { Promise($0 * 2) }.catch { print($0) }.map { $0 - 3 }
    .recover { _ in 0 }.flatMap { Promise($0) }.validate { $0 > 0 }.timeout(.seconds(1)).always {}.map { $0 + 1 }
let literal = Promise(1).map { $0 + 1 }.flatMap { Promise($0) }.map { $0 - 3 }.map { $0 + 1 }.map { $0 - 3 }

let checked: (Promise<Int>, Promise<Int>, Promise<Int>, Promise<Int>, Promise<Int>) = (fetched, lifted, computed, mixed, typed)
let more: (Promise<Int>, Promise<Int>, Promise<Int>, Promise<Int>, Promise<Int>) = (named, pending, ten, caught, literal)
