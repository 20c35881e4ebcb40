import Testing

/// Every code block of every DocC article is compiled somewhere (`DocCCodeBlocks` says how),
/// and the check itself catches what it must.
@Suite struct DocCCodeBlocksTests {
    @Test func everyArticleBlockIsCompiled() throws {
        let articles = try DocCCodeBlocks.articles()
        let problems = DocCCodeBlocks.problems(articles: articles, sources: try DocCCodeBlocks.sources(), products: try DocCCodeBlocks.products())
        #expect(problems.isEmpty, "\(problems.count) DocC code block problem(s):\n\n\(problems.joined(separator: "\n\n"))")

        // The articles are all found: every module's catalog, and the blocks in them.
        let catalogs = Set(articles.map { $0.path.split(separator: "/")[1] })
        #expect(catalogs.isSuperset(of: ["PromiseCore", "PromiseFS", "PromiseSQLite", "PromiseUV", "PromiseCurl", "PromiseTesting"]))
        let swiftBlocks = articles.flatMap { DocCCodeBlocks.blocks(inArticle: $0.text, path: $0.path).blocks }.filter { $0.language == "swift" }
        #expect(swiftBlocks.count >= 130)
        #expect(swiftBlocks.contains { $0.foreignLibrary == "PromiseKit" })
    }

    // MARK: - The matcher

    static let begin = DocCCodeBlocks.regionBegin
    static let end = DocCCodeBlocks.regionEnd

    /// An article with one block per element, separated by a line of prose.
    static func article(_ blocks: [String]...) -> (path: String, text: String) {
        ("Sources/M/M.docc/A.md", (["# A", ""] + blocks.flatMap { ["Some prose.", "", "```swift"] + $0 + ["```", ""] }).joined(separator: "\n"))
    }

    static func source(_ lines: [String]) -> (path: String, text: String) {
        ("Tests/MTests/DocCExamplesTests.swift", lines.joined(separator: "\n"))
    }

    static let compiled = [
        "@Test func example() {",
        "    " + begin,
        "    let answer = Promise(42)",
        "        .then { $0 + 1 }",
        "",
        "    let text = answer.then { \"\\($0)\" }",
        "    " + end,
        "    #expect(text.value == \"43\")",
        "}",
    ]

    /// The problems with one article, leaving out regions it does not use unless `stale` is true.
    func problems(_ article: (path: String, text: String), _ sources: [(path: String, text: String)] = [source(compiled)], stale: Bool = false) -> [String] {
        DocCCodeBlocks.problems(articles: [article], sources: sources, products: ["PromiseCore"])
            .filter { stale || !$0.contains("holds no article's") }
    }

    @Test func aBlockInARegionPassesWhateverItsIndentation() {
        #expect(problems(Self.article(["let answer = Promise(42)", "    .then { $0 + 1 }"])) == [])
        #expect(problems(Self.article(["  let answer = Promise(42)", "      .then { $0 + 1 }", "", "  let text = answer.then { \"\\($0)\" }"])) == [])
    }

    @Test func anAbsentBlockFailsNamingArticleLineAndBlock() throws {
        let found = problems(Self.article(["let answer = Promise(42)", "    .then { $0 + 1 }"], ["let missing = Promise(7)"]))
        #expect(found.count == 1)
        let message = try #require(found.first)
        #expect(message.hasPrefix("Sources/M/M.docc/A.md:12: this ```swift block is not, line for line, inside any"))
        #expect(message.hasSuffix("```swift\nlet missing = Promise(7)\n```"))
    }

    @Test func anEditedLineABlankLineOrIndentationFails() {
        #expect(problems(Self.article(["let answer = Promise(41)", "    .then { $0 + 1 }"])).count == 1)  // a changed value
        #expect(problems(Self.article(["let answer = Promise(42)", "", "    .then { $0 + 1 }"])).count == 1)  // a blank line more
        #expect(problems(Self.article(["let answer = Promise(42)", "    .then { $0 + 1 }", "let text = answer.then { \"\\($0)\" }"])).count == 1)  // one less
        #expect(problems(Self.article(["let answer = Promise(42)", ".then { $0 + 1 }"])).count == 1)  // relative indentation
    }

    @Test func codeOutsideARegionDoesNotCount() {
        let outside = ["let answer = Promise(42)", "    .then { $0 + 1 }"] + Self.compiled
        let unmarked = Self.source(Self.compiled.filter { !$0.contains("DocC:") })
        #expect(problems(Self.article(["let missing = Promise(7)"]), [Self.source(outside)]).count == 1)
        #expect(problems(Self.article(["let answer = Promise(42)"]), [unmarked]).count == 1)
    }

    @Test func aRegionWithNoBlockIsStale() {
        let found = problems(Self.article(["let other = 1"]), [Self.source(Self.compiled), Self.source([Self.begin, "let other = 1", Self.end])], stale: true)
        #expect(
            found == ["Tests/MTests/DocCExamplesTests.swift:2: this DocC region holds no article's ```swift block (an article changed, or the region is stale)"]
        )
    }

    @Test func unpairedMarkersAndFencesFail() {
        #expect(problems(Self.article(["let answer = Promise(42)"]), [Self.source(Self.compiled + [Self.begin])]).contains { $0.contains("is never ended") })
        #expect(problems(Self.article(["let answer = Promise(42)"]), [Self.source(Self.compiled + [Self.end])]).contains { $0.contains("without") })
        let open = ("Sources/M/M.docc/A.md", "```swift\nlet answer = Promise(42)\n")
        #expect(problems(open).contains { $0 == "Sources/M/M.docc/A.md:1: the code block opened here is never closed" })
    }

    @Test func aForeignBlockNeedsCompiledCodeRightAfterIt() {
        let foreign = ["// PromiseKit", "firstly { fetch() }.done { print($0) }"]
        let ours = ["let answer = Promise(42)", "    .then { $0 + 1 }"]
        // Followed, across @Row/@Column directive lines, by our compiled block: fine.
        let side = ["```swift"] + foreign + ["```", "}", "@Column {", "```swift"] + ours + ["```"]
        #expect(problems(("Sources/M/M.docc/A.md", side.joined(separator: "\n"))) == [])
        // Prose in between, nothing after, or another foreign block after: each fails.
        #expect(problems(Self.article(foreign, ours)).count == 1)
        #expect(problems(Self.article(foreign)).count == 1)
        let twice = (["```swift"] + foreign + ["```", "```swift"] + foreign + ["```", "```swift"] + ours + ["```"]).joined(separator: "\n")
        #expect(problems(("Sources/M/M.docc/A.md", twice)).count == 1)
        // An uncompiled block after it does not count.
        let absent = (["```swift"] + foreign + ["```", "```swift", "let missing = 7", "```"]).joined(separator: "\n")
        #expect(problems(("Sources/M/M.docc/A.md", absent)).count == 1)
        #expect(DocCCodeBlocks.foreignMarkers == ["// PromiseKit", "// google/promises", "// khanlou/Promise", "// SwiftNIO"])
    }

    @Test func fenceLanguagesAreChecked() {
        let text = ["```", "let x = 1", "```", "```Swift", "let y = 2", "```", "```shell", "make test", "```"].joined(separator: "\n")
        let found = problems(("Sources/M/M.docc/A.md", text))
        #expect(found.count == 2)
        #expect(found.first?.hasPrefix("Sources/M/M.docc/A.md:1: a code block without a language") == true)
        #expect(found.last?.hasPrefix("Sources/M/M.docc/A.md:4: unknown fence language `Swift`") == true)
    }

    @Test func leadingImportsMustBeTheRegionFilesImports() {
        let block = ["import PromiseCore", "", "let answer = Promise(42)"]
        #expect(problems(Self.article(block), [Self.source(["import PromiseCore"] + Self.compiled)]) == [])
        #expect(problems(Self.article(block)).count == 1)  // the file does not import PromiseCore
    }

    @Test func manifestFragmentsNameRealProducts() {
        let good = ["// Package.swift", "dependencies: [.product(name: \"PromiseCore\", package: \"swift-promise\")]"]
        let bad = ["// Package.swift", "dependencies: [.product(name: \"PromiseCoar\", package: \"swift-promise\")]"]
        #expect(problems(Self.article(good)) == [])
        #expect(problems(Self.article(bad)).first?.contains("names product `PromiseCoar`") == true)
    }
}
