// Three `then(on:)` links and a `Void` one: the table's fourth shape.
import Dispatch
import PromiseCore

let i = 1
let q = DispatchQueue(label: "shapes")
let s = DispatchSemaphore(value: 0)
let onQueue = Promise(i).then(on: q) { $0 + 1 }.then(on: q) { $0 + 1 }.then(on: q) { $0 + 1 }
    .then(on: .inline) { _ in s.signal() }
