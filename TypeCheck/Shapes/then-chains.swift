// `then` in the shapes its three forms type-check quickly: up to three one-line links, and
// multi-statement closures in chains of any length.
import PromiseCore

func fetch(_ x: Int) -> Promise<Int> { Promise(x) }
let i = 1

let three = Promise(i).then { $0 + 1 }.then { $0 + 1 }.then { $0 + 1 }
let formsInOne = Promise(i).then { fetch($0) }.then { print($0) }.then { String($0) }
let multiStatement = Promise(i)
    .then { x in
        let y = x + 1
        return y * 2
    }
    .then { x in
        print(x)
        return fetch(x - 3)
    }
    .then { x in
        let text = String(x)
        print(text)
    }
    .then { x in
        let doubled = x * 2
        return doubled + 1
    }
    .then { x in
        guard x > 0 else { return fetch(0) }
        return fetch(x)
    }
    .then { x in
        let y = x - 1
        return y
    }
let checked: (Promise<Int>, Promise<String>, Promise<Int>) = (three, formsInOne, multiStatement)
