// One-line chains of the overloaded `then` longer than three links. Swift 6.3 gives up on
// each of these ("unable to type-check this expression in reasonable time"): it weighs the
// three forms of every link against the others, and a one-line closure's body joins that
// search. `map`, `flatMap` and `done` are the one-form spellings that type-check; see the
// TypeInference article.
import PromiseCore

let i = 1

let four = Promise(i).then { $0 + 1 }.then { $0 + 1 }.then { $0 + 1 }.then { $0 + 1 }
