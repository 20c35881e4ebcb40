import Foundation

/// Reads the fenced code blocks of every DocC article and the `// DocC: begin` … `// DocC: end`
/// regions of the code that compiles them, and says which blocks have no compiled copy.
///
/// The rules, for every fenced block of every `Sources/*/*.docc/**/*.md`:
/// - A block names its language; a ```swift block is one of three kinds, told by its first line:
///   - `// PromiseKit`, `// google/promises`, `// khanlou/Promise`, `// SwiftNIO`
///     (``foreignMarkers``): another library's code, shown for comparison and not compiled.
///     The next block must be a compiled ```swift block, with nothing but blank lines and
///     `@Row`/`@Column` directive lines between them: what to write instead.
///   - `// Package.swift`: a manifest fragment; every `.product(name:package: "swift-promise")`
///     in it must name a product of the package.
///   - anything else: Swift that must appear line for line inside a `// DocC: begin` …
///     `// DocC: end` region of a `.swift` file under `Tests/` (by convention the test target's
///     `DocCExamplesTests.swift`) or `Examples/Sources/` (the programs an article quotes).
///     Lines compare after removing the indentation the block and the region window have in
///     common and trailing spaces; blank lines count. A block's leading `import` lines are
///     matched against the imports of the file that holds the region.
/// - Blocks in other languages (```shell, ```text, …) are not Swift and are not compiled.
/// - Every region holds at least one article block, so a stale copy cannot linger.
enum DocCCodeBlocks {
    /// First lines that mark a ```swift block as another library's code.
    static let foreignMarkers = ["// PromiseKit", "// google/promises", "// khanlou/Promise", "// SwiftNIO"]

    /// The first line of a manifest fragment.
    static let manifestMarker = "// Package.swift"

    static let regionBegin = "// DocC: begin"
    static let regionEnd = "// DocC: end"

    /// One fenced code block of an article.
    struct Block: Equatable {
        /// The article's path, relative to the package root.
        let article: String
        /// The 1-based line of the opening fence.
        let line: Int
        /// The 1-based line of the closing fence.
        let endLine: Int
        /// The fence's info string, such as `swift`.
        let language: String
        /// The lines between the fences, trailing spaces removed.
        let lines: [String]

        /// The library a foreign block shows, or `nil` for our own code.
        var foreignLibrary: String? {
            guard language == "swift", let first = lines.first?.trimmingCharacters(in: .whitespaces) else { return nil }
            return DocCCodeBlocks.foreignMarkers.first { first == $0 }.map { String($0.dropFirst(3)) }
        }

        var isManifest: Bool { language == "swift" && lines.first?.trimmingCharacters(in: .whitespaces) == DocCCodeBlocks.manifestMarker }

        /// The block as an article shows it, for a failure message.
        var quoted: String { (["```" + language] + lines + ["```"]).joined(separator: "\n") }
    }

    /// One `// DocC: begin` … `// DocC: end` region of a Swift file.
    struct Region: Equatable {
        let file: String
        /// The 1-based line of `// DocC: begin`.
        let line: Int
        let lines: [String]
    }

    /// A text's lines, trailing spaces removed.
    static func lines(of text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            String(line.reversed().drop(while: \.isWhitespace).reversed())
        }
    }

    /// The fenced blocks of an article, and the fences that are not closed.
    static func blocks(inArticle text: String, path: String) -> (blocks: [Block], problems: [String]) {
        var blocks: [Block] = []
        var open: (line: Int, indent: Int, language: String, lines: [String])?
        for (index, line) in lines(of: text).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = open {
                if trimmed == "```" {
                    blocks.append(Block(article: path, line: block.line, endLine: index + 1, language: block.language, lines: block.lines))
                    open = nil
                } else {
                    // Content keeps its own indentation beyond the fence's.
                    let leading = line.prefix { $0 == " " }.count
                    block.lines.append(String(line.dropFirst(min(leading, block.indent))))
                    open = block
                }
            } else if trimmed.hasPrefix("```") {
                let indent = line.prefix { $0 == " " }.count
                open = (index + 1, indent, String(trimmed.dropFirst(3)).trimmingCharacters(in: .whitespaces), [])
            }
        }
        let problems = open.map { ["\(path):\($0.line): the code block opened here is never closed"] } ?? []
        return (blocks, problems)
    }

    /// The DocC regions of a Swift file, and the markers that do not pair up.
    static func regions(inSource text: String, path: String) -> (regions: [Region], problems: [String]) {
        var regions: [Region] = []
        var problems: [String] = []
        var open: (line: Int, lines: [String])?
        for (index, line) in lines(of: text).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == regionBegin {
                if let region = open { problems.append("\(path):\(region.line): `\(regionBegin)` without `\(regionEnd)` before the next begin") }
                open = (index + 1, [])
            } else if trimmed == regionEnd {
                if let region = open {
                    regions.append(Region(file: path, line: region.line, lines: region.lines))
                } else {
                    problems.append("\(path):\(index + 1): `\(regionEnd)` without `\(regionBegin)`")
                }
                open = nil
            } else if open != nil {
                open?.lines.append(line)
            }
        }
        if let region = open { problems.append("\(path):\(region.line): `\(regionBegin)` is never ended") }
        return (regions, problems)
    }

    /// The lines without the indentation their non-blank lines have in common.
    static func dedented<C: Collection>(_ lines: C) -> [String] where C.Element == String {
        let indents = lines.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " || $0 == "\t" }.count }
        let common = indents.min() ?? 0
        return lines.map { $0.isEmpty ? "" : String($0.dropFirst(common)) }
    }

    /// Whether `region` holds `block` as consecutive lines, compared after dedenting both.
    static func region(_ region: [String], contains block: [String]) -> Bool {
        let wanted = dedented(block)
        guard !wanted.isEmpty, wanted.count <= region.count else { return false }
        return (0...(region.count - wanted.count)).contains { start in
            dedented(region[start..<(start + wanted.count)]) == wanted
        }
    }

    /// Whether only blank lines and DocC directive lines (`@Row {`, `@Column {`, `}`) lie between two blocks.
    static func adjacent(_ first: Block, _ second: Block, articleLines: [String]) -> Bool {
        guard second.line > first.endLine else { return false }
        return articleLines[first.endLine..<(second.line - 1)].allSatisfy { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty || trimmed == "}" || (trimmed.hasPrefix("@") && trimmed.hasSuffix("{"))
        }
    }

    /// Everything wrong with `articles` against the regions of `sources`, one message each.
    /// - Parameters:
    ///   - articles: Each article's path and text.
    ///   - sources: Each Swift file's path and text.
    ///   - products: The package's product names, for manifest fragments.
    static func problems(articles: [(path: String, text: String)], sources: [(path: String, text: String)], products: Set<String>) -> [String] {
        var problems: [String] = []
        var regions: [Region] = []
        var sourceLines: [String: Set<String>] = [:]
        for source in sources {
            sourceLines[source.path, default: []].formUnion(lines(of: source.text).map { $0.trimmingCharacters(in: .whitespaces) })
            let found = self.regions(inSource: source.text, path: source.path)
            regions += found.regions
            problems += found.problems
        }
        var used = Set<Int>()
        for article in articles {
            let parsed = blocks(inArticle: article.text, path: article.path)
            problems += parsed.problems
            let articleLines = lines(of: article.text)
            for (index, block) in parsed.blocks.enumerated() {
                let place = "\(block.article):\(block.line)"
                if block.language.isEmpty {
                    problems.append("\(place): a code block without a language; write ```swift for Swift, or name the language it is in\n\(block.quoted)")
                } else if block.language.lowercased().hasPrefix("swift"), block.language != "swift" {
                    problems.append("\(place): unknown fence language `\(block.language)`; Swift blocks are ```swift\n\(block.quoted)")
                } else if block.language != "swift" {
                    continue
                } else if block.lines.allSatisfy(\.isEmpty) {
                    problems.append("\(place): an empty ```swift block")
                } else if let library = block.foreignLibrary {
                    let next = index + 1 < parsed.blocks.count ? parsed.blocks[index + 1] : nil
                    if let next, next.language == "swift", next.foreignLibrary == nil, !next.isManifest,
                        adjacent(block, next, articleLines: articleLines)
                    {
                        continue
                    }
                    problems.append(
                        "\(place): \(library) code must be followed at once by a compiled ```swift block that shows what to write instead\n\(block.quoted)")
                } else if block.isManifest {
                    for name in productNames(in: block.lines) where !products.contains(name) {
                        problems.append("\(place): the manifest fragment names product `\(name)`, which the package does not declare\n\(block.quoted)")
                    }
                } else {
                    let (imports, body) = splitImports(block.lines)
                    let homes = regions.indices.filter { index in
                        self.region(regions[index].lines, contains: body)
                            && imports.allSatisfy { sourceLines[regions[index].file]?.contains($0) ?? false }
                    }
                    if homes.isEmpty {
                        problems.append(
                            "\(place): this ```swift block is not, line for line, inside any `\(regionBegin)` … `\(regionEnd)` region of a .swift file under Tests/ or Examples/Sources/ (put it in the product's DocCExamplesTests.swift)\n\(block.quoted)"
                        )
                    }
                    used.formUnion(homes)
                }
            }
        }
        for (index, region) in regions.enumerated() where !used.contains(index) {
            problems.append("\(region.file):\(region.line): this DocC region holds no article's ```swift block (an article changed, or the region is stale)")
        }
        return problems
    }

    /// A block's leading `import` lines (which a region cannot hold inside a function) and the rest.
    static func splitImports(_ lines: [String]) -> (imports: [String], body: [String]) {
        let head = lines.prefix { $0.hasPrefix("import ") || $0.isEmpty }
        let imports = head.filter { !$0.isEmpty }
        return imports.isEmpty ? ([], lines) : (imports, Array(lines.dropFirst(head.count)))
    }

    /// The `swift-promise` product names a manifest fragment depends on.
    static func productNames(in lines: [String]) -> [String] {
        lines.flatMap { line -> [String] in
            line.components(separatedBy: ".product(name: \"").dropFirst().compactMap { rest in
                let parts = rest.components(separatedBy: "\"")
                guard parts.count >= 3, parts[1].contains("package:"), parts[2] == "swift-promise" else { return nil }
                return parts[0]
            }
        }
    }

    // MARK: - The repository

    /// The package root: three levels above this file.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The files under `directory` (relative to the root) whose relative path satisfies `include`, sorted.
    static func files(under directory: String, where include: (String) -> Bool) throws -> [(path: String, text: String)] {
        let base = root.appendingPathComponent(directory)
        guard let enumerator = FileManager.default.enumerator(atPath: base.path) else { return [] }
        var paths: [String] = []
        while let relative = enumerator.nextObject() as? String {
            if relative.split(separator: "/").contains(where: { $0.hasPrefix(".build") }) { continue }
            if include(relative) { paths.append(relative) }
        }
        return try paths.sorted().map { relative in
            (directory + "/" + relative, try String(contentsOf: base.appendingPathComponent(relative), encoding: .utf8))
        }
    }

    /// Every DocC article: `Sources/<Module>/<Module>.docc/**/*.md`.
    static func articles() throws -> [(path: String, text: String)] {
        try files(under: "Sources") { path in
            let parts = path.split(separator: "/")
            return parts.count >= 3 && parts[1].hasSuffix(".docc") && path.hasSuffix(".md")
        }
    }

    /// Every Swift file that may hold DocC regions: under `Tests/` and `Examples/Sources/`.
    static func sources() throws -> [(path: String, text: String)] {
        try files(under: "Tests") { $0.hasSuffix(".swift") } + files(under: "Examples/Sources") { $0.hasSuffix(".swift") }
    }

    /// The product names the root `Package.swift` declares.
    static func products() throws -> Set<String> {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        return Set(
            manifest.components(separatedBy: ".library(name: \"").dropFirst().compactMap { $0.components(separatedBy: "\"").first }
        )
    }
}
