import Foundation
import Testing

/// A `dirent` from `readdir` is as long as its name, not `MemoryLayout<dirent>.size`: the last
/// entry of a listing can end before the 256 bytes `d_name` is declared with. Reading
/// `entry.pointee.d_name` as a value copies all 256, past the end of the listing's buffer
/// (AddressSanitizer's heap-buffer-overflow in a test's `/proc/self/fd` walk). The name is read
/// in place instead, through `&entry.pointee.d_name`, up to its terminating zero.
@Suite struct DirectoryEntryNameTests {
    @Test func noCodeCopiesADirectoryEntrysNameWhole() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var scanned = 0
        var copies: [String] = []
        for directory in ["Sources", "Tests", "Examples/Sources", "Checks/Sources", "Benchmarks/Sources"] {
            let base = root.appendingPathComponent(directory)
            guard let files = FileManager.default.enumerator(atPath: base.path) else { continue }
            // This file's own examples of the pattern are not code that reads a directory.
            for case let file as String in files
            where file.hasSuffix(".swift") && !file.hasSuffix("DirectoryEntryNameTests.swift") {
                let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where line.contains(".pointee.d_name") {
                    scanned += 1
                    if copiesNameWhole(line) { copies.append("\(directory)/\(file):\(number + 1)") }
                }
            }
        }
        // The scan must see the readers: the package lists directories in well over ten places.
        #expect(scanned > 10, "the scan found too few directory readers: \(scanned)")
        #expect(copies.isEmpty, "read the name in place, through &entry.pointee.d_name: \(copies)")
    }

    @Test func theScanTellsACopyFromAnInPlaceRead() {
        #expect(copiesNameWhole("let name = withUnsafeBytes(of: entry.pointee.d_name) { $0 }"))
        #expect(copiesNameWhole("var name = entry.pointee.d_name"))
        #expect(!copiesNameWhole("let name = withUnsafeBytes(of: &entry.pointee.d_name) { $0 }"))
        #expect(!copiesNameWhole("withUnsafePointer(to: &entry.pointee.d_name) { String(cString: $0) }"))
        #expect(!copiesNameWhole("// `entry.pointee.d_name` copied as a value reads too far"))
    }
}

/// Whether `line` reads some `X.pointee.d_name` as a value rather than through `&`, outside a
/// comment.
private func copiesNameWhole(_ line: some StringProtocol) -> Bool {
    let code = line.components(separatedBy: "//").first ?? ""
    guard let pattern = try? Regex(#"(&?)[A-Za-z_$][A-Za-z0-9_$]*\.pointee\.d_name"#) else { return true }
    return code.matches(of: pattern).contains { $0.output[1].substring?.isEmpty ?? true }
}
