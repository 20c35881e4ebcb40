// LinkNotes as a program: `swift run promise-link-notes [port] [database path]`, then
//
//   curl -s -X POST localhost:8080/notes -d '{"title": "home", "link": "http://127.0.0.1:8080/notes/1"}'
//   curl -s localhost:8080/notes/1
import Hummingbird
import LinkNotes
import PromiseCurl
import PromiseSQLite

let arguments = CommandLine.arguments.dropFirst()
let port = arguments.first.flatMap { Int($0) } ?? 8080
let path = arguments.dropFirst().first ?? "link-notes.sqlite"

let database = SQLiteDatabase(path: path)
try await prepareLinkNotes(database).get()
let client = try CurlClient()
let app = Application(
    router: linkNotesRouter(database: database, client: client),
    configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "LinkNotes")
)
try await app.runService()
try await client.shutdown().get()
try await database.close().get()
