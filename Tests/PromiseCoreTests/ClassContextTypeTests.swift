import Dispatch
import Synchronization
import Testing

@testable import PromiseCore

/// A class context that counts the work it is handed. `Tag` makes distinct types of it: one
/// registered with `registerClassContextType`, one not (which takes the dynamic cast).
private final class CountingClassContext<Tag>: ExecutionContext {
    let queue = DispatchQueue(label: "class-context")
    let handed = Atomic<Int>(0)

    func execute(_ work: @escaping @Sendable () -> Void) {
        handed.add(1, ordering: .relaxed)
        queue.async(execute: work)
    }

    var executionContextID: ObjectIdentifier? { ObjectIdentifier(self) }
}

private enum Registered {}
private enum Unregistered {}
private typealias RegisteredContext = CountingClassContext<Registered>
private typealias UnregisteredClassContext = CountingClassContext<Unregistered>

/// Context classes registered with `registerClassContextType` get their callbacks the same way
/// as any other context, on the very instance given to `then`.
@Suite struct ClassContextTypeTests {
    @Test func aRegisteredContextClassRunsItsOwnCallbacks() async throws {
        registerClassContextType(RegisteredContext.self)
        registerClassContextType(RegisteredContext.self)  // again: nothing changes
        let first = RegisteredContext()
        let second = RegisteredContext()
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
        registerClassContextType(RegisteredContext.self)
        let context = RegisteredContext()
        #expect(classBound(context) === context)
        let queue = DispatchQueue(label: "class-bound")
        #expect(classBound(queue) === queue)
        let unregistered = UnregisteredClassContext()
        #expect(classBound(unregistered) === unregistered)
        #expect(classBound(InlineContext()) is ContextBox)
    }
}
