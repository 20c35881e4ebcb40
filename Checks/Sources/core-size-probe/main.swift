// The smallest real use of PromiseCore (a chain on a queue, a blocking wait), compared with
// core-size-baseline, which does the same with plain Dispatch, by scripts/check-core-cost.
import Dispatch
import PromiseCore

let queue = DispatchQueue(label: "size-probe")
let answer = Promise(40)
    .then(on: queue) { value in value + 1 }
    .then(on: queue) { value in value + 1 }
print("answer: \(try awaitPromise(answer))")
