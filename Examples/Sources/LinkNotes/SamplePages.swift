import Hummingbird

/// A site for notes to link to, served on loopback by LinkNotes' tests and by
/// `Benchmarks/route-ratios.sh`:
///
/// - `/page`: 1 234 bytes of HTML;
/// - `/gone`: 404;
/// - `/slow`: answers after 30 s.
public func linkNotesSamplePages() -> Router<BasicRequestContext> {
    let router = Router()
    router.get("/page") { _, _ in
        Response(
            status: .ok,
            headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: String(repeating: "x", count: 1234)))
        )
    }
    router.get("/gone") { _, _ -> Response in Response(status: .notFound) }
    router.get("/slow") { _, _ -> String in
        try await Task.sleep(for: .seconds(30))
        return "late"
    }
    return router
}
