// A Hummingbird 2 server whose routes answer from PromiseSQLite and PromiseCurl, chaining on
// the event loop of the connection each request came on (PromiseNIO's EventLoopContext).
//
//   GET  /notes/:id   the note, and what its link answers now (status, type, size)
//   POST /notes       {"title": …, "link": …} → {"id": …}
import Hummingbird
import NIOCore
import PromiseCurl
import PromiseNIO
import PromiseSQLite

/// The request context of LinkNotes' routes: Hummingbird's own, plus the event loop of the
/// connection the request came on, where each route's promise chain runs.
public struct LinkNotesContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The loop of the request's connection.
    public let eventLoop: any EventLoop

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        eventLoop = source.channel.eventLoop
    }
}

/// A note as stored.
struct Note: Decodable, Sendable {
    let id: Int64
    let title: String
    let link: String
}

/// What `POST /notes` takes.
struct NewNote: Decodable, Sendable {
    let title: String
    let link: String
}

/// What `POST /notes` answers.
struct CreatedNote: ResponseEncodable, Sendable {
    let id: Int64
}

/// What `GET /notes/:id` answers: the note, and its link as it answers now.
public struct NotePreview: ResponseEncodable, Decodable, Sendable, Equatable {
    public let id: Int64
    public let title: String
    public let link: String
    /// The link's HTTP status.
    public let linkStatus: Int
    /// The link's `Content-Type`, if it sent one.
    public let linkType: String?
    /// The size of the link's body in bytes.
    public let linkBytes: Int

    public init(id: Int64, title: String, link: String, linkStatus: Int, linkType: String?, linkBytes: Int) {
        self.id = id
        self.title = title
        self.link = link
        self.linkStatus = linkStatus
        self.linkType = linkType
        self.linkBytes = linkBytes
    }
}

/// The LinkNotes schema, created if missing.
public func prepareLinkNotes(_ database: SQLiteDatabase) -> Promise<Void> {
    database.executeScript("CREATE TABLE IF NOT EXISTS notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, link TEXT NOT NULL)")
}

/// LinkNotes' routes over `database` (prepared with ``prepareLinkNotes(_:)``), fetching links
/// with `client`.
///
/// - Parameters:
///   - database: Where the notes are.
///   - client: What fetches a note's link.
///   - linkTimeout: How long a link may take before the route answers 504.
/// - Returns: The router.
public func linkNotesRouter(
    database: SQLiteDatabase,
    client: CurlClient,
    linkTimeout: Duration = .seconds(10)
) -> Router<LinkNotesContext> {
    let router = Router(context: LinkNotesContext.self)

    router.get("/notes/:id") { _, context -> NotePreview in
        let id = try context.parameters.require("id", as: Int64.self)
        // DocC: begin
        let loop = EventLoopContext(context.eventLoop)
        return try await database.queryFirst(Note.self, "SELECT id, title, link FROM notes WHERE id = ?", binding: id)
            .then(on: loop) { note -> Note in
                guard let note else { throw HTTPError(.notFound, message: "no note \(id)") }
                return note
            }
            // DocC: end
            .then(on: loop) { note in
                client.get(note.link)
                    .timeout(on: loop, linkTimeout, label: "GET \(note.link)")
                    .then(on: loop) { response in
                        NotePreview(
                            id: note.id,
                            title: note.title,
                            link: note.link,
                            linkStatus: response.status.code,
                            linkType: response.headerFields[.contentType],
                            linkBytes: response.body.count
                        )
                    }
                    .recover(on: loop) { error -> NotePreview in
                        if let timedOut = error as? PromiseError, timedOut.code == .timedOut {
                            throw HTTPError(.gatewayTimeout, message: "\(note.link) did not answer within \(linkTimeout)")
                        }
                        throw HTTPError(.badGateway, message: "\(note.link): \(error)")
                    }
            }
            .get()
    }

    router.post("/notes") { request, context -> CreatedNote in
        let note = try await request.decode(as: NewNote.self, context: context)
        guard !note.title.isEmpty, note.link.hasPrefix("http://") || note.link.hasPrefix("https://") else {
            throw HTTPError(.badRequest, message: "a note needs a title and an http(s) link")
        }
        let loop = EventLoopContext(context.eventLoop)
        return try await database.execute("INSERT INTO notes(title, link) VALUES (?, ?)", binding: note.title, note.link)
            .then(on: loop) { CreatedNote(id: $0.lastInsertRowID) }
            .get()
    }

    return router
}
