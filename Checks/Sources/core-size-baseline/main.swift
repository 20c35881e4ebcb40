// core-size-probe's work with plain Dispatch and no PromiseCore.
import Dispatch

let queue = DispatchQueue(label: "size-probe")
let semaphore = DispatchSemaphore(value: 0)
nonisolated(unsafe) var result = 0
queue.async {
    let first = 40 + 1
    queue.async {
        result = first + 1
        semaphore.signal()
    }
}
semaphore.wait()
print("answer: \(result)")
