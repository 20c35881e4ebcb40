// SizeProbeNIO: SizeProbe's work with SwiftNIO's futures on a one-thread event loop, so that
// ratios.sh can put PromiseCore's size cost beside SwiftNIO's.
import NIOCore
import NIOPosix

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let loop = group.next()
let answer = loop.makeSucceededFuture(40)
    .map { value in value + 1 }
    .map { value in value + 1 }
print("answer: \(try answer.wait())")
try group.syncShutdownGracefully()
