@testable import PromiseSQLite
import Testing

/// The pure parts of commit observation: `SavepointStatement` and `TransactionChanges`.
@Suite struct TransactionChangesTests {
    func parse(_ sql: String) -> SavepointStatement? {
        sql.withCString { SavepointStatement.parse($0) }
    }

    @Test func savepointStatementsAreReadAsSQLiteReadsThem() {
        #expect(parse("SAVEPOINT a") == .savepoint("a"))
        #expect(parse("  savepoint\n\tMixed_Case$1 ;") == .savepoint("mixed_case$1"))
        #expect(parse("-- note\nSAVEPOINT /* x */ \"Two Words\"") == .savepoint("two words"))
        #expect(parse("SAVEPOINT [b]") == .savepoint("b"))
        #expect(parse("SAVEPOINT `a``b`") == .savepoint("a`b"))
        #expect(parse("SAVEPOINT 'it''s'") == .savepoint("it's"))
        #expect(parse("RELEASE a") == .release("a"))
        #expect(parse("RELEASE SAVEPOINT a") == .release("a"))
        #expect(parse("RELEASE savepoint") == .release("savepoint"))
        #expect(parse("RELEASE \"savepoint\"") == .release("savepoint"))
        #expect(parse("ROLLBACK TO a") == .rollbackTo("a"))
        #expect(parse("rollback transaction to savepoint \"A\"") == .rollbackTo("a"))
        #expect(parse("ROLLBACK") == nil)
        #expect(parse("ROLLBACK TRANSACTION") == nil)
        #expect(parse("SELECT 1") == nil)
        #expect(parse("REPLACE INTO t VALUES (1)") == nil)
        #expect(parse("SAVEPOINT \"unterminated") == nil)
        #expect(parse("SAVEPOINT") == nil)
        #expect(parse("") == nil)
        #expect(parse("/* unterminated") == nil)
        #expect(parse("SAVEPOINT é") == .savepoint("é"))
    }

    @Test func savepointLevelsKeepReleasedAndDropRolledBackTables() {
        var changes = TransactionChanges()
        changes.changed(table: "a")
        changes.apply(.savepoint("s1"))
        changes.changed(table: "b")
        changes.apply(.savepoint("s2"))
        changes.changed(table: "c")
        changes.apply(.rollbackTo("s1"))  // drops b and c, keeps s1 open
        changes.changed(table: "d")
        changes.apply(.savepoint("s1"))  // a second savepoint of the same name
        changes.changed(table: "e")
        changes.apply(.release("s1"))  // the innermost s1
        changes.apply(.rollbackTo("unknown"))
        changes.apply(.release("unknown"))
        changes.commitHookRan()
        #expect(changes.settle(autocommit: true) == ["a", "d", "e"])
        #expect(changes.isEmpty)
    }

    @Test func aCommitCountsOnlyOnceTheConnectionIsInAutocommitMode() {
        var changes = TransactionChanges()
        #expect(changes.settle(autocommit: true) == nil, "no commit hook ran")
        changes.changed(table: "a")
        changes.commitHookRan()
        #expect(changes.settle(autocommit: false) == nil, "a COMMIT that failed with SQLITE_BUSY")
        changes.changed(table: "b")
        changes.commitHookRan()
        #expect(changes.settle(autocommit: true) == ["a", "b"])
        changes.changed(table: "c")
        changes.rolledBack()
        #expect(changes.isEmpty)
        changes.commitHookRan()
        #expect(changes.settle(autocommit: true) == [], "a commit that changed no table the hooks see")
    }
}
