// Six `map` links of arithmetic on a Double: the type checker gives up (about 6 s), with or
// without a literal start. The same chain on an Int compiles in well under a second.
import PromiseCore

let d = 1.5
let chain = Promise(d).map { $0 * 2 }.map { $0 - 3 }.map { $0 + 1 }.map { $0 * 2 }.map { $0 - 3 }.map { $0 + 1 }
