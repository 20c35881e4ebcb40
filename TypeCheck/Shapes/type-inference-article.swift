// The long chain the TypeInference article shows, with the declarations it assumes.
import PromiseCore

struct Item: Sendable { var amount: Int }
struct Cart: Sendable { var items: [Item] }
func fetchCart(_ id: Int) -> Promise<Cart> { Promise(Cart(items: [])) }
func priceAll(_ items: [Item]) -> Promise<[Item]> { Promise(items) }
func log(_ message: String) {}
let id = 7

let total = fetchCart(id)                // Promise<Cart>
    .map { $0.items }                    // a value
    .flatMap { priceAll($0) }            // a promise, waited for
    .done { log("priced \($0.count)") }  // a side effect; the value passes on
    .map { $0.reduce(0) { $0 + $1.amount } }
    .validate { $0 >= 0 }
    .recover { _ in 0 }
let checked: Promise<Int> = total
