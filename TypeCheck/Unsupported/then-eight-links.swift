// See then-one-line-chains.swift.
import PromiseCore

let i = 1
let eight = Promise(i).then { $0 + 1 }.then { $0 * 2 }.then { $0 - 3 }.then { $0 + 1 }.then { $0 * 2 }.then { $0 - 3 }
    .then { $0 + 1 }.then { $0 * 2 }
