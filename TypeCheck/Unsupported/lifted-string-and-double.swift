// Lifting a String or a Double with `Promise(…)` inside `flatMap`, with four `map` links after
// it: the type checker still gives up (about 7-8 s). `Int` values, and `fetch($0)`-style
// functions that return a promise, stay fast (TypeCheck/Shapes/lifted-values.swift). Until
// these compile, split the chain with a `let`, or lift with a function of your own.
import PromiseCore

let s = "a"
let text = Promise(s).map { $0 + "b" }.flatMap { Promise($0 + "c") }.map { $0 + "d" }.map { $0 + "e" }.map { $0 + "f" }
    .map { $0 + "g" }
let d = 1.5
let number = Promise(d).map { $0 * 2 }.flatMap { Promise($0 - 3) }.map { $0 + 1 }.map { $0 * 2 }.map { $0 - 3 }.map { $0 + 1 }
