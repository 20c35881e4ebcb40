import Synchronization

/// Prints what happens, with the time since the current scene began and who is speaking.
///
/// Callbacks print from the library's default queue, the simulated services from their own
/// queue and the scenes from the main thread; one lock keeps each line whole.
final class Narrator: Sendable {
    private let sceneStart = Mutex(ContinuousClock.now)

    /// Starts a new scene: prints its title and an explanation, and resets the clock.
    func scene(_ number: Int, _ title: String, _ explanation: String...) {
        sceneStart.withLock { start in
            print("")
            print("\(number). \(title)")
            for line in explanation {
                print("   \(line)")
            }
            start = .now
        }
    }

    /// Prints one step: `[ 120 ms] who: what`.
    func say(_ who: String, _ what: String) {
        sceneStart.withLock { start in
            let elapsed = ContinuousClock.now - start
            let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
            let stamp = String(milliseconds)
            print("   [\(String(repeating: " ", count: max(0, 4 - stamp.count)))\(stamp) ms] \(who): \(what)")
        }
    }

    /// Prints a plain line of commentary under the current scene.
    func note(_ text: String) {
        sceneStart.withLock { _ in print("   \(text)") }
    }
}
