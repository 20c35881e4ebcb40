import Foundation
import PromiseCore
import PromiseCurl
import PromiseFS
import PromiseSQLite
import PromiseUV
import Testing

/// Every error code has one name, the one its errors print, and the documentation uses it.
@Suite struct ErrorCodeNameTests {
    /// "Arguments it cannot work with" is `invalidArgument` in every product, printed so.
    @Test func invalidArgumentIsOneCodePrintedByItsNameInEveryProduct() {
        #expect(PromiseError(.invalidArgument, message: "m").description.hasPrefix("PromiseError.invalidArgument"))
        #expect(CurlError(.invalidArgument, message: "m").description.hasPrefix("CurlError.invalidArgument:"))
        #expect(SQLiteError(.invalidArgument, message: "m").description.hasPrefix("SQLiteError.invalidArgument:"))
        #expect(FSError(.invalidArgument, operation: "open", path: "/a", activity: "a").description.hasPrefix("FSError.invalidArgument "))
        #expect(UVError(.invalidArgument, operation: "spawn").description.hasPrefix("UVError.invalidArgument "))
    }

    /// A code constant defined as another constant is a second name for one code: it must be
    /// deprecated (renamed to the name that prints), and no documentation may use it.
    @Test func everyOtherNameIsDeprecatedAndNoDocumentationUsesIt() throws {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let files = try #require(FileManager.default.enumerator(atPath: sources.appendingPathComponent("Sources").path))
        var texts: [(path: String, text: String)] = []
        for case let file as String in files where file.hasSuffix(".swift") || file.hasSuffix(".md") {
            texts.append(("Sources/" + file, try String(contentsOf: sources.appendingPathComponent("Sources/" + file), encoding: .utf8)))
        }
        texts.append(("README.md", try String(contentsOf: sources.appendingPathComponent("README.md"), encoding: .utf8)))
        #expect(texts.count > 200, "the scan found too few files: \(texts.count)")

        // `public static let shutdown = closed` inside `extension SQLiteError { struct Code`.
        var aliases: [(type: String, name: String)] = []
        var undeprecated: [String] = []
        for (path, text) in texts where path.hasSuffix(".swift") && path.contains("Error") {
            let lines = text.components(separatedBy: "\n")
            let type = path.split(separator: "/").last!.split(separator: "+").first!.split(separator: ".").first!
            for (index, line) in lines.enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix("public static let "), let equals = trimmed.firstIndex(of: "=") else { continue }
                let value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                guard value.allSatisfy({ $0.isLetter || $0.isNumber }) else { continue }
                let name = trimmed.dropFirst("public static let ".count).prefix { $0 != " " }
                aliases.append((String(type), String(name)))
                if index == 0 || !lines[index - 1].contains("@available(*, deprecated, renamed: \"\(value)\"") {
                    undeprecated.append("\(path):\(index + 1): \(trimmed)")
                }
            }
        }
        #expect(aliases.count >= 3, "the scan found the known aliases: \(aliases)")
        #expect(undeprecated.isEmpty, "a second name for a code that is not deprecated: \(undeprecated)")

        var uses: [String] = []
        for (path, text) in texts {
            for alias in aliases {
                for reference in [
                    "\(alias.type)/Code-swift.struct/\(alias.name)``", "\(alias.type)/Code/\(alias.name)``", "`\(alias.type).Code.\(alias.name)`",
                ]
                where text.contains(reference) {
                    uses.append("\(path): \(reference)")
                }
            }
        }
        #expect(uses.isEmpty, "documentation names a code by a name its errors do not print: \(uses)")
    }
}
