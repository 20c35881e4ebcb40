import Foundation
import FuzzChecks

/// The target this process fuzzes, named by `PROMISE_FUZZ_TARGET` (read once).
let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["PROMISE_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        complain("promise-fuzz: set PROMISE_FUZZ_TARGET to one of: \(names) (got '\(name)')")
        exit(2)
    }
    return target
}()

private func complain(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// libFuzzer's entry point: one input, checked by the selected target. A property that does
/// not hold is a crash, which libFuzzer saves as `crash-…` and reports with the message.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    do {
        try selectedTarget.check(UnsafeRawBufferPointer(start: data, count: size))
    } catch {
        fatalError("\(selectedTarget.rawValue): \(error.message)")
    }
    return 0
}

#if !FUZZING
    /// Without the fuzzer (a plain `swift build`), the binary replays files instead:
    /// `promise-fuzz TARGET FILE…` checks each file and exits non-zero if any fails.
    @main
    struct Replay {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
                complain("usage: promise-fuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) FILE…")
                exit(2)
            }
            var failed = 0
            for path in arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else {
                    complain("\(path): cannot read")
                    failed += 1
                    continue
                }
                do {
                    try target.check([UInt8](data))
                    print("\(path): ok")
                } catch {
                    print("\(path): FAILED: \(error.message)")
                    failed += 1
                }
            }
            exit(failed == 0 ? 0 : 1)
        }
    }
#endif
