// Ten one-line links of the one-form names, shorthand and named arguments, with and without `on:`.
import Dispatch
import PromiseCore

let i = 1
let q = DispatchQueue(label: "shapes")
let s = DispatchSemaphore(value: 0)

let shorthand: Promise<Int> = Promise(i).map { $0 + 1 }.map { $0 * 2 }.map { $0 - 3 }.map { $0 + 1 }.map { $0 * 2 }
    .map { $0 - 3 }.map { $0 + 1 }.map { $0 * 2 }.map { $0 - 3 }.map { $0 + 1 }
let named = Promise(i).map { x in x + 1 }.map { x in x * 2 }.map { x in x - 3 }.map { x in x + 1 }.map { x in x * 2 }
    .map { x in x - 3 }.map { x in x + 1 }.map { x in x * 2 }.map { x in x - 3 }.map { x in x + 1 }
let onQueue = Promise(i).map(on: q) { $0 + 1 }.map(on: q) { $0 + 1 }.map(on: q) { $0 + 1 }.map(on: q) { $0 + 1 }
    .map(on: q) { $0 + 1 }.map(on: q) { $0 + 1 }.map(on: q) { $0 + 1 }.map(on: q) { $0 + 1 }.map(on: q) { $0 + 1 }
    .done(on: .inline) { _ in s.signal() }
let types = Promise(i).map { $0 + 1 }.map { String($0) }.map { $0 + "!" }.map { $0.count }.map { [$0, $0] }
    .map { $0.first ?? 0 }.map { $0 * 3 }.map { $0 > 2 }.map { $0 ? "yes" : "no" }.map { $0.uppercased() }
let checked: (Promise<Int>, Promise<Int>, Promise<Int>, Promise<String>) = (shorthand, named, onQueue, types)
