// Instructions and heap allocations per operation of PromiseCore beside SwiftNIO
// EventLoopFuture and plain GCD, for Benchmarks/counts.sh to count under valgrind.
//
//   PromiseCoreCounts <scenario>/<variant> <iterations>   one warm-up iteration, then <iterations>
//   PromiseCoreCounts --list                              name, operations per iteration and
//                                                         `threaded` or `inline`, tab-separated
//
// The program does nothing but the scenario, so the difference between the counts of two runs
// with different iteration counts, divided by the difference in operations, is the cost of one
// operation: process start-up, fixtures and lazily initialized globals (which the warm-up
// iteration touches) cancel out.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every scenario's variants, in the order `--list` prints them.
let variants: [Variant] = inlineVariants() + keptVariants() + queueVariants() + concurrentVariants() + bridgeVariants()

/// Prints how to call the program and the variant names, then exits with status 2.
func usage(_ variants: [Variant]) -> Never {
    print("usage: PromiseCoreCounts <scenario>/<variant> <iterations>")
    print("       PromiseCoreCounts --list")
    print("variants: " + variants.map(\.name).joined(separator: " "))
    exit(2)
}

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "--list" {
    for variant in variants {
        print("\(variant.name)\t\(variant.operationsPerIteration)\t\(variant.isThreaded ? "threaded" : "inline")")
    }
    exit(0)
}
guard arguments.count == 2,
    let variant = variants.first(where: { $0.name == arguments.first }),
    let iterations = Int(arguments.last!), iterations >= 0
else { usage(variants) }

let body = variant.prepare()
body()
for _ in 0..<iterations {
    body()
}
