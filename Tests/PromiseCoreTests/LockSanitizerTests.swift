import Dispatch
import Glibc
import PromiseCore
import Testing

/// The lock tells ThreadSanitizer about each hand-over (see `Lock`), through hooks it looks up
/// once and then reads on every lock operation.
@Suite struct LockSanitizerTests {
    /// Found exactly when this process runs under ThreadSanitizer, and the same answer from
    /// every thread.
    @Test func hooksAreFoundExactlyUnderThreadSanitizer() {
        let underThreadSanitizer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_acquire") != nil
        #expect((sanitizerHooks != nil) == underThreadSanitizer)
        let answers = Answers()
        DispatchQueue.concurrentPerform(iterations: 64) { _ in answers.record(sanitizerHooks != nil) }
        #expect(answers.all == [underThreadSanitizer])
    }
}

private final class Answers: @unchecked Sendable {
    private let lock = PthreadMutex()
    private var seen: Set<Bool> = []
    func record(_ answer: Bool) { _ = lock.withLock { seen.insert(answer) } }
    var all: Set<Bool> { lock.withLock { seen } }
}

/// A pthread mutex, so this test does not depend on the lock it checks.
private final class PthreadMutex: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func withLock<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
