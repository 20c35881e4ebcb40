import Glibc
import PromiseSQLite
import Testing

@Suite struct SQLiteErrorTests {
    private func usersDatabase() async throws -> SQLiteDatabase {
        let db = SQLiteDatabase.inMemory()
        try await db.executeScript(
            """
            CREATE TABLE teams(id INTEGER PRIMARY KEY);
            CREATE TABLE users(
                id INTEGER PRIMARY KEY,
                email TEXT NOT NULL UNIQUE,
                team INTEGER REFERENCES teams(id),
                age INTEGER CHECK (age >= 0)
            );
            INSERT INTO teams(id) VALUES (1);
            INSERT INTO users(email, team) VALUES ('ada@example.com', 1);
            """
        ).get()
        return db
    }

    @Test func aUniqueViolationHasTheExtendedCodeMessageAndSQL() async throws {
        let db = try await usersDatabase()
        defer { db.close() }
        let sql = "INSERT INTO users(email) VALUES (?)"
        let error = try #require(await sqliteError(db.execute(sql, ["ada@example.com"])))
        #expect(error.code == .constraintUnique)
        #expect(error.code.resultCode == 2067)
        #expect(error.message == "UNIQUE constraint failed: users.email")
        #expect(error.sql == sql)
        #expect(error.description == "SQLiteError.constraintUnique (SQLite 2067): UNIQUE constraint failed: users.email — INSERT INTO users(email) VALUES (?)")
        #expect(!error.description.contains("ada@example.com"), "bound values stay out of errors")
    }

    @Test func aPrimaryCodeMatchesItsExtendedCodesInCatch() async throws {
        let db = try await usersDatabase()
        defer { db.close() }
        var matched: [String] = []
        for (sql, bindings) in [
            ("INSERT INTO users(email) VALUES (?)", ["ada@example.com"] as SQLiteBindings),
            ("INSERT INTO users(email, team) VALUES ('b@example.com', ?)", [99]),
            ("INSERT INTO users(email) VALUES (NULL)", .none),
            ("INSERT INTO users(email, age) VALUES ('c@example.com', -1)", .none),
        ] {
            do {
                try await db.execute(sql, bindings).get()
                Issue.record("\(sql) must fail")
            } catch SQLiteError.Code.constraintUnique {
                matched.append("unique")
            } catch SQLiteError.Code.constraint {
                matched.append("constraint")
            }
        }
        #expect(matched == ["unique", "constraint", "constraint", "constraint"])
        #expect(SQLiteError.Code.constraint.matches(.constraintForeignKey))
        #expect(SQLiteError.Code.constraint.matches(.constraintNotNull))
        #expect(!SQLiteError.Code.constraintUnique.matches(.constraintNotNull))
        #expect(!SQLiteError.Code.busy.matches(.constraintUnique))
        #expect(SQLiteError.Code.constraintForeignKey.description == "constraintForeignKey")
        #expect(SQLiteError.Code(resultCode: 522).name == "ioErrorShortRead")
        #expect(SQLiteError.Code(resultCode: 99_999).name == "SQLite code 99999")
        #expect(SQLiteError.Code.closed.resultCode == nil && SQLiteError.Code.closed.name == "closed")
    }

    @Test func foreignKeysAreEnforcedByDefault() async throws {
        let db = try await usersDatabase()
        defer { db.close() }
        let error = await sqliteError(db.execute("INSERT INTO users(email, team) VALUES ('x@example.com', 42)"))
        #expect(error?.code == .constraintForeignKey)
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM users").get() == 1, "nothing was lost or added")
    }

    @Test func aSyntaxErrorCarriesTheSQL() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let error = try #require(await sqliteError(db.query("SELEC 1 FROM nowhere")))
        #expect(error.code == .error)
        #expect(error.message == #"near "SELEC": syntax error"#)
        #expect(error.description == #"SQLiteError.error (SQLite 1): near "SELEC": syntax error — SELEC 1 FROM nowhere"#)
        let missing = try #require(await sqliteError(db.query("SELECT * FROM nowhere")))
        #expect(missing.message == "no such table: nowhere")
    }

    @Test func doubleQuotedStringLiteralsAreOff() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.execute("CREATE TABLE t(a)").get()
        // With DQS on, SQLite would treat "missing" as the string 'missing'.
        let error = await sqliteError(db.query(#"SELECT * FROM t WHERE a = "missing""#))
        #expect(error?.message == "no such column: missing")
    }

    @Test func executeRefusesTwoStatementsAndEmptySQL() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.execute("CREATE TABLE t(a)").get()
        let two = await sqliteError(db.execute("INSERT INTO t VALUES (1); DROP TABLE t"))
        #expect(two?.code == .invalidUse)
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 0, "the first statement must not have run")
        let empty = await sqliteError(db.execute(""))
        #expect(empty?.code == .invalidUse)
        let comment = await sqliteError(db.execute("-- nothing"))
        #expect(comment?.code == .invalidUse)
        // A trailing semicolon or comment is still one statement.
        try await db.execute("INSERT INTO t VALUES (1); -- done").get()
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 1)
    }

    @Test func executeScriptStopsAtTheFailingStatementAndNamesIt() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let error = await sqliteError(db.executeScript("CREATE TABLE a(x); INSERT INTO a VALUES (1);\nINSERT INTO nope VALUES (2); CREATE TABLE b(x);"))
        #expect(error?.message == "no such table: nope")
        #expect(error?.sql == "\nINSERT INTO nope VALUES (2);")
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM a").get() == 1)
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM sqlite_schema WHERE name = 'b'").get() == 0)
    }

    @Test func openingFailuresSayWhatAndWhere() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var readOnly = SQLiteConfiguration()
        readOnly.access = .readOnly
        let missing = try #require(await sqliteError(SQLiteDatabase.open(path: dir("missing.sqlite"), configuration: readOnly)))
        #expect(missing.code == .cannotOpen)
        #expect(
            missing.message
                == "cannot open '\(dir("missing.sqlite"))': unable to open database file (the file does not exist, and this configuration does not create it; access .readWriteCreate does)"
        )

        // Where the path goes wrong is named: a missing directory, a file in the way, a directory.
        let noDirectory = try #require(await sqliteError(SQLiteDatabase.open(path: dir("nope/db.sqlite"))))
        #expect(noDirectory.code == .cannotOpen)
        #expect(noDirectory.message.hasSuffix("(the directory '\(dir("nope"))' does not exist)"))
        _ = close(open(dir("plain"), O_WRONLY | O_CREAT, 0o644))
        let fileInTheWay = try #require(await sqliteError(SQLiteDatabase.open(path: dir("plain/db.sqlite"))))
        #expect(fileInTheWay.message.hasSuffix("('\(dir("plain"))' is not a directory)"))
        let isDirectory = try #require(await sqliteError(SQLiteDatabase.open(path: dir.path)))
        #expect(isDirectory.message.hasSuffix("(it is a directory)"), "\(isDirectory.message)")
        if getuid() != 0 {
            _ = close(open(dir("secret.sqlite"), O_WRONLY | O_CREAT, 0o000))
            let unreadable = try #require(await sqliteError(SQLiteDatabase.open(path: dir("secret.sqlite"))))
            #expect(unreadable.message.contains("no permission to read it"), "\(unreadable.message)")
        }

        let notADatabase = dir("text.sqlite")
        let fd = open(notADatabase, O_WRONLY | O_CREAT, 0o644)
        let text = Array("this is not a database, just some text that is long enough to fill a header\n".utf8)
        _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let garbage = try #require(await sqliteError(SQLiteDatabase.open(path: notADatabase)))
        #expect(garbage.code == .notADatabase)

        let directory = try #require(await sqliteError(SQLiteDatabase.open(path: dir.path)))
        #expect(SQLiteError.Code.cannotOpen.matches(directory.code))

        // A path with a NUL byte is refused as every product refuses one: C would cut it short.
        let nul = try #require(await sqliteError(SQLiteDatabase.open(path: dir("a\u{0}b.sqlite"))))
        #expect(nul.code == .invalidArgument)
        #expect(nul.message == "the database path '\(dir("a"))\\0b.sqlite' contains a NUL byte, which would cut it short in the system call; refused")
        #expect(access(dir("a"), F_OK) != 0, "nothing was created under the cut-short name")

        // Operations on a database that failed to open are rejected with the reason.
        let db = SQLiteDatabase(path: dir("missing.sqlite"), configuration: readOnly)
        let later = await sqliteError(db.query("SELECT 1"))
        #expect(later?.code == .cannotOpen)
        db.close()
    }

    @Test func aReadOnlyConnectionRefusesWrites() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let writer = try await SQLiteDatabase.open(path: dir("db.sqlite")).get()
        try await writer.execute("CREATE TABLE t(a)").get()
        try await writer.close().get()
        var readOnly = SQLiteConfiguration()
        readOnly.access = .readOnly
        let reader = try await SQLiteDatabase.open(path: dir("db.sqlite"), configuration: readOnly).get()
        defer { reader.close() }
        let error = await sqliteError(reader.execute("INSERT INTO t VALUES (1)"))
        #expect(SQLiteError.Code.readOnly.matches(error?.code ?? .error))
    }

    @Test func sqlWithANULByteIsRefused() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        #expect(await sqliteError(db.executeScript("CREATE TABLE a(x);\u{0}CREATE TABLE b(x);"))?.code == .invalidUse)
        #expect(await sqliteError(db.execute("SELECT 1\u{0} anything"))?.code == .invalidUse)
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM sqlite_schema").get() == 0)
    }

    /// Opens a relative path, so it changes the working directory: in a process of its own (an
    /// exit test), where no test running beside it (one that starts a program) sees the change.
    @Test func aPathThatLooksLikeAURIIsAFileName() async {
        await #expect(processExitsWith: .success) {
            let dir = TemporaryDirectory()
            defer { dir.cleanUp() }
            #expect(chdir(dir.path) == 0)
            // With URI names on, this would open "data.db" without locking.
            let db = try await SQLiteDatabase.open(path: "file:data.db?nolock=1").get()
            try await db.execute("CREATE TABLE t(a)").get()
            try await db.close().get()
            #expect(access(dir("file:data.db?nolock=1"), F_OK) == 0)
            #expect(access(dir("data.db"), F_OK) != 0)
        }
    }

    @Test func changesCountOnlyRowsTheStatementChanged() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.execute("CREATE TABLE t(n)").get()
        #expect(try await db.execute("INSERT INTO t VALUES (1), (2)").get().changes == 2)
        #expect(try await db.execute("CREATE TABLE u(n)").get().changes == 0)
        #expect(try await db.execute("SELECT * FROM t").get().changes == 0)
        #expect(try await db.execute("UPDATE t SET n = n + 1").get().changes == 2)
        #expect(try await db.execute("DELETE FROM t WHERE n = 99").get().changes == 0)
    }

    @Test func aSchemaChangeUnderACachedStatementReadsTheNewColumns() async throws {
        struct Pair: Decodable, Equatable, Sendable { let b: Int; let c: Int }
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.executeScript("CREATE TABLE t(a, b, c); INSERT INTO t VALUES (1, 2, 3);").get()
        #expect(try await db.query(Pair.self, "SELECT * FROM t").get() == [Pair(b: 2, c: 3)])
        try await db.execute("ALTER TABLE t DROP COLUMN a").get()
        #expect(try await db.query(Pair.self, "SELECT * FROM t").get() == [Pair(b: 2, c: 3)])
        try await db.execute("ALTER TABLE t RENAME COLUMN b TO bee").get()
        let row = try await db.queryFirst("SELECT * FROM t").get()
        #expect(row?["bee"] == .integer(2))
        #expect(row?.columns.names == ["bee", "c"])
    }
}
