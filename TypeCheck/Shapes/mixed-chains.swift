// Ten-link chains mixing values, promises and Void closures with recover, catch, always,
// validate and timeout.
import Dispatch
import PromiseCore

struct Failure: Error {}
func fetch(_ x: Int) -> Promise<Int> { Promise(x) }
let i = 1
let q = DispatchQueue(label: "shapes")

let first = Promise(i).map { $0 + 1 }.flatMap { fetch($0) }.map { $0 * 2 }.done { print($0) }.map { x in x - 3 }
    .flatMap { x in fetch(x + 1) }.validate { $0 > 0 }.recover { _ in 0 }.map { $0 + 1 }.always { print("done") }
let promises = Promise(i).flatMap { fetch($0) }.flatMap { fetch($0 + 1) }.flatMap { fetch($0 * 2) }
    .flatMap { fetch($0 - 3) }.flatMap { fetch($0) }.flatMap(on: q) { fetch($0 + 1) }.flatMap { x in fetch(x * 2) }
    .flatMap { fetch($0 - 3) }.flatMap { fetch($0) }.flatMap { fetch($0 + 1) }
let alternating = Promise(i).flatMap { fetch($0) }.map { $0 + 1 }.flatMap { fetch($0) }.map { $0 + 1 }
    .flatMap { fetch($0) }.map { $0 + 1 }.done { print($0) }.done { x in print(x) }.map { $0 + 1 }
    .timeout(.seconds(1))
let errors = Promise(i).map { $0 + 1 }.recover { _ in 0 }.catch { print($0) }.always {}.validate { $0 > 1 }
    .timeout(.seconds(1)).map { $0 * 2 }.flatMapError { _ in fetch(1) }.done { _ in }.map { String($0) }
let throwing = Promise(i).map { x throws -> Int in if x > 5 { throw Failure() }; return x }.map { $0 + 1 }
    .recover(policy: .allErrors) { _ in 7 }.flatMap(on: .inline) { fetch($0 * 2) }.map { $0 - 1 }
    .validate(on: q) { $0 != 3 }.catch(on: q) { _ in }.always(on: .inline) {}.map { $0 + 1 }.done { _ in }
let checked: (Promise<Int>, Promise<Int>, Promise<Int>, Promise<String>, Promise<Int>) =
    (first, promises, alternating, errors, throwing)
