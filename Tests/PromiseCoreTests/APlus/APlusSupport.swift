import Glibc
import PromiseCore
import Synchronization

/// Shared helpers for the Promises/A+ suites in this folder.

/// An error with an identity, so a test can check that *the same* reason arrives.
struct APlusError: Error, Equatable {
    let id: Int
    init(_ id: Int) { self.id = id }
}

/// A value with an identity, so a test can check that *the same* value arrives (`===`).
final class APlusToken: Sendable {
    let id: Int
    init(_ id: Int) { self.id = id }
}

/// Records events from any thread, in the order they happen.
final class APlusRecorder<Element: Sendable>: Sendable {
    private let storage = Lock<[Element]>([])

    func record(_ element: Element) {
        storage.withLock { $0.append(element) }
    }

    var events: [Element] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
}

/// Holds a promise that a callback needs to see before the promise exists (self-resolution).
final class APlusPromiseBox<Value: Sendable>: Sendable {
    private let storage = Lock<Promise<Value>?>(nil)

    var promise: Promise<Value>? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

extension Promise {
    /// The rejection reason as an ``APlusError``, if it is one.
    var aplusError: APlusError? { error as? APlusError }
    /// The rejection reason's ``PromiseError`` code, if it is a ``PromiseError``.
    var promiseErrorCode: PromiseError.Code? { (error as? PromiseError)?.code }
}

/// Records the diagnostics whose error is an ``APlusError``, from the first `install` on.
/// Installed once and never removed (it forwards to the handler it replaced), so suites
/// running in parallel cannot lose each other's reports.
enum APlusDiagnostics {
    static let reports = APlusRecorder<PromiseDiagnostic>()

    static let install: Void = {
        let previous = Promises.diagnosticsHandler
        Promises.diagnosticsHandler = { report in
            if report.error is APlusError { reports.record(report) }
            previous(report)
        }
    }()

    /// The reports about `APlusError(id)`.
    static func reports(about id: Int) -> [PromiseDiagnostic] {
        reports.events.filter { ($0.error as? APlusError)?.id == id }
    }
}

/// Whether this process runs under ThreadSanitizer (its runtime exports `__tsan_init`).
/// TSan makes promise work about 10x slower, so the long-chain tests use shorter chains
/// there: stack depth is checked by the normal run, races by the TSan run.
let aplusUnderThreadSanitizer: Bool = {
    guard let program = dlopen(nil, RTLD_NOW) else { return false }
    return dlsym(program, "__tsan_init") != nil
}()
