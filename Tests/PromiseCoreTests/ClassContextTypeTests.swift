import Dispatch
import Synchronization
import Testing

@testable import PromiseCore

/// A class context that counts the work it is handed.
private final class CountingClassContext: ExecutionContext {
    let queue = DispatchQueue(label: "class-context")
    let handed = Atomic<Int>(0)

    func execute(_ work: @escaping @Sendable () -> Void) {
        handed.add(1, ordering: .relaxed)
        queue.async(execute: work)
    }

    var executionContextID: ObjectIdentifier? { ObjectIdentifier(self) }
}

/// A second, never registered, so it takes the dynamic cast.
private final class UnregisteredClassContext: ExecutionContext {
    let queue = DispatchQueue(label: "unregistered-context")
    let handed = Atomic<Int>(0)

    func execute(_ work: @escaping @Sendable () -> Void) {
        handed.add(1, ordering: .relaxed)
        queue.async(execute: work)
    }

    var executionContextID: ObjectIdentifier? { ObjectIdentifier(self) }
}

/// Context classes registered with `registerClassContextType` get their callbacks the same way
/// as any other context, on the very instance given to `then`.
@Suite struct ClassContextTypeTests {
    @Test func aRegisteredContextClassRunsItsOwnCallbacks() async throws {
        registerClassContextType(CountingClassContext.self)
        registerClassContextType(CountingClassContext.self)  // again: nothing changes
        let first = CountingClassContext()
        let second = CountingClassContext()
        let value = try await Promise(1)
            .then(on: first) { $0 + 1 }
            .then(on: second) { $0 * 10 }
            .get()
        #expect(value == 20)
        #expect(first.handed.load(ordering: .relaxed) == 1)
        #expect(second.handed.load(ordering: .relaxed) == 1)
    }

    @Test func anUnregisteredContextClassRunsItsOwnCallbacks() async throws {
        let context = UnregisteredClassContext()
        let value = try await Promise(1).then(on: context) { $0 + 1 }.get()
        #expect(value == 2)
        #expect(context.handed.load(ordering: .relaxed) == 1)
    }

    @Test func classBoundKeepsTheInstance() {
        registerClassContextType(CountingClassContext.self)
        let context = CountingClassContext()
        #expect(classBound(context) === context)
        let queue = DispatchQueue(label: "class-bound")
        #expect(classBound(queue) === queue)
        let unregistered = UnregisteredClassContext()
        #expect(classBound(unregistered) === unregistered)
        #expect(classBound(InlineContext()) is ContextBox)
    }
}
