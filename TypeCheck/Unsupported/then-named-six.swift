// See then-one-line-chains.swift.
import PromiseCore

let i = 1
let six = Promise(i).then { x in x + 1 }.then { x in x + 1 }.then { x in x + 1 }.then { x in x + 1 }
    .then { x in x + 1 }.then { x in x + 1 }
