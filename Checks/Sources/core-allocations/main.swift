// PromiseCore's three single-threaded scenarios of Benchmarks/counts.sh, for
// scripts/check-core-cost to count heap allocations under valgrind:
//
//   core-allocations <scenario> <iterations>    one warm-up iteration, then <iterations>
//
// resolved-then-inline      a resolved promise and one `then` on an inline context
// pending-3-inline-fulfil   a pending promise, three inline `then`s, then `fulfill`
// pending-1-callback-kept   a pending promise with one inline `then`; both are kept
//
// The difference between two runs' counts divided by the difference in iterations is the cost
// of one operation: start-up and the warm-up iteration cancel out.
import Glibc
import PromiseCore

/// Uses `value` in a way the optimizer cannot see through, so the work producing it stays.
@inline(never)
func opaqueUse(_ value: some Any) {
    withExtendedLifetime(value) {}
}

@inline(never)
func resolvedThen(_ context: InlineContext) {
    opaqueUse(Promise(1).then(on: context) { value in value + 1 })
}

@inline(never)
func pendingChain(_ context: InlineContext) {
    let (source, resolver) = Promise<Int>.pending()
    let last =
        source
        .then(on: context) { value in value + 1 }
        .then(on: context) { value in value + 1 }
        .then(on: context) { value in value + 1 }
    resolver.fulfill(1)
    opaqueUse(last)
}

/// Storage reserved once, so that runs with different iteration counts differ only in what
/// they keep.
final class Kept {
    static let capacity = 1 << 15
    var items: [(PromiseResolver<Int>, Promise<Int>)] = []
    init() { items.reserveCapacity(Self.capacity) }
}

@inline(never)
func keptCallback(_ context: InlineContext, _ kept: Kept) {
    let (source, resolver) = Promise<Int>.pending()
    let child = source.then(on: context) { value in value + 1 }
    precondition(kept.items.count < Kept.capacity, "more than \(Kept.capacity) iterations")
    kept.items.append((resolver, child))
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let iterations = Int(arguments[2]), iterations >= 0 else {
    print("usage: core-allocations resolved-then-inline|pending-3-inline-fulfil|pending-1-callback-kept <iterations>")
    exit(2)
}
let context = InlineContext()
let kept = Kept()
let body: () -> Void
switch arguments[1] {
case "resolved-then-inline": body = { resolvedThen(context) }
case "pending-3-inline-fulfil": body = { pendingChain(context) }
case "pending-1-callback-kept": body = { keptCallback(context, kept) }
default:
    print("core-allocations: unknown scenario \(arguments[1])")
    exit(2)
}
body()
for _ in 0..<iterations {
    body()
}
