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
        changes.changed(table: "a", operation: .insert, key: .rowID(1))
        changes.apply(.savepoint("s1"))
        changes.changed(table: "b", operation: .insert, key: .rowID(1))
        changes.apply(.savepoint("s2"))
        changes.changed(table: "c", operation: .insert, key: .rowID(1))
        changes.apply(.rollbackTo("s1"))  // drops b and c, keeps s1 open
        changes.changed(table: "d", operation: .insert, key: .rowID(1))
        changes.apply(.savepoint("s1"))  // a second savepoint of the same name
        changes.changed(table: "e", operation: .insert, key: .rowID(1))
        changes.apply(.release("s1"))  // the innermost s1
        changes.apply(.rollbackTo("unknown"))
        changes.apply(.release("unknown"))
        changes.commitHookRan()
        #expect(changes.settle(autocommit: true)?.tables == ["a", "d", "e"])
        #expect(changes.isEmpty)
    }

    @Test func aCommitCountsOnlyOnceTheConnectionIsInAutocommitMode() {
        var changes = TransactionChanges()
        #expect(changes.settle(autocommit: true) == nil, "no commit hook ran")
        changes.changed(table: "a", operation: .insert, key: .rowID(1))
        changes.commitHookRan()
        #expect(changes.settle(autocommit: false) == nil, "a COMMIT that failed with SQLITE_BUSY")
        changes.changed(table: "b", operation: .insert, key: .rowID(1))
        changes.commitHookRan()
        #expect(changes.settle(autocommit: true)?.tables == ["a", "b"])
        changes.changed(table: "c", operation: .insert, key: .rowID(1))
        _ = changes.rolledBack()
        #expect(changes.isEmpty)
        changes.commitHookRan()
        #expect(changes.settle(autocommit: true)?.tables == [], "a commit that changed no table the hooks see")
    }

    func row(_ table: String, _ operation: SQLiteRowChange.Operation, _ rowID: Int64) -> SQLiteRowChange {
        SQLiteRowChange(table: table, operation: operation, rowID: rowID)
    }

    @Test func rowsAreKeptInOrderAndForgottenWithTheirSavepoint() {
        var changes = TransactionChanges()
        changes.rowLimit = 100
        changes.changed(table: "a", operation: .insert, key: .rowID(1))
        changes.apply(.savepoint("s"))
        changes.changed(table: "b", operation: .update, key: .rowID(2))
        changes.apply(.rollbackTo("s"))
        changes.changed(table: "a", isNewTable: false, operation: .delete, key: .rowID(1))
        changes.apply(.savepoint("inner"))
        changes.changed(table: "c", operation: .insert, key: .rowID(3))
        changes.apply(.release("s"))
        changes.commitHookRan()
        let committed = changes.settle(autocommit: true)
        #expect(committed?.rows == [row("a", .insert, 1), row("a", .delete, 1), row("c", .insert, 3)])
        #expect(committed?.tables == ["a", "c"])
        #expect(committed?.unlistedRows == 0)
        #expect(changes.isEmpty)
    }

    @Test func aFailedStatementIsForgottenOnlyWhenSQLiteUndidIt() {
        var changes = TransactionChanges()
        changes.rowLimit = 100
        changes.statementStarted()
        changes.changed(table: "a", operation: .insert, key: .rowID(1))
        changes.statementEnded(changesSchema: false, changesRows: true)
        changes.statementStarted()
        changes.changed(table: "b", operation: .insert, key: .rowID(2))
        changes.statementEnded(changesSchema: true, changesRows: false)
        let undone = changes.statementFailed(changes: 5)
        #expect(undone, "not an INSERT, UPDATE or DELETE: SQLite undid it")
        changes.statementStarted()
        changes.changed(table: "c", operation: .insert, key: .rowID(3))
        changes.statementEnded(changesSchema: false, changesRows: true)
        let aborted = changes.statementFailed(changes: 0)
        #expect(aborted, "no change counted: an ABORT undid it")
        changes.statementStarted()
        changes.changed(table: "a", isNewTable: false, operation: .insert, key: .rowID(4))
        changes.statementEnded(changesSchema: false, changesRows: true)
        let kept = !changes.statementFailed(changes: 1)
        #expect(kept, "a FAIL conflict keeps the rows before it")
        let again = changes.statementFailed(changes: 0)
        #expect(!again, "one failure per statement")
        changes.commitHookRan()
        let committed = changes.settle(autocommit: true)
        #expect(committed?.rows == [row("a", .insert, 1), row("a", .insert, 4)])
        #expect(committed?.tables == ["a"])
        #expect(committed?.schemaChanged == false)
    }

    @Test func oneTransactionListsAtMostTheLimitAndCountsTheRest() {
        var changes = TransactionChanges()
        changes.rowLimit = 3
        changes.apply(.savepoint("s"))
        for id in 1...5 { changes.changed(table: "a", operation: .insert, key: .rowID(Int64(id))) }
        changes.apply(.rollbackTo("s"))  // gives the rolled-back rows' room back
        for id in 6...9 { changes.changed(table: "b", operation: .update, key: .rowID(Int64(id))) }
        changes.commitHookRan()
        let committed = changes.settle(autocommit: true)
        #expect(committed?.rows.map(\.rowID) == [6, 7, 8])
        #expect(committed?.unlistedRows == 1)
        #expect(committed?.tables == ["b"])

        var tablesOnly = TransactionChanges()
        tablesOnly.changed(table: "a", operation: .insert, key: .rowID(1))
        tablesOnly.commitHookRan()
        let tableCommit = tablesOnly.settle(autocommit: true)
        #expect(tableCommit?.rows == [] && tableCommit?.unlistedRows == 0, "no row observer: no rows recorded or counted")
    }

    @Test func aRollbackSaysWhatItDiscarded() {
        var changes = TransactionChanges()
        changes.rowLimit = 10
        let nothing = changes.rolledBack()
        #expect(nothing.isEmpty)
        changes.changed(table: "a", operation: .insert, key: .rowID(1))
        changes.statementEnded(changesSchema: true, changesRows: false)
        let discarded = changes.rolledBack()
        #expect(discarded == TransactionChanges.Discarded(tables: ["a"], rows: 1, schemaChanged: true))
        #expect(changes.isEmpty && changes.rowLimit == 10)
    }

    @Test func aStatementsFirstKeywordIsReadPastCommentsAndSpace() {
        func keyword(_ sql: String) -> String? { sql.withCString { SavepointStatement.leadingKeyword($0) } }
        #expect(keyword("CREATE TABLE t(x)") == "create")
        #expect(keyword("  -- c\n/* d */ drop index i") == "drop")
        #expect(keyword("Alter TABLE t ADD y") == "alter")
        #expect(keyword("WITH x AS (SELECT 1) DELETE FROM t") == "with")
        #expect(keyword("(SELECT 1)") == nil)
        #expect(keyword("") == nil)
    }

    @Test func aSlowConsumersQueueIsBoundedAndCountsWhatItMissed() {
        func commit(_ rows: Int) -> SQLiteTransactionEvent {
            .committed(SQLiteCommittedChanges(changes: (0..<rows).map { row("t", .insert, Int64($0)) }, tables: ["t"]))
        }
        var queue = TransactionEventQueue(limit: 4)
        queue.push(commit(2))
        queue.push(.rolledBack(tables: ["t"]))
        queue.push(commit(2))
        queue.push(commit(1))  // 5 rows would pass the limit: counted
        queue.push(.rolledBack(tables: ["u"]))  // after a missed one, everything joins it; a rollback changed no table
        #expect(queue.count == 4)
        var taken = [queue.take(), queue.take()]
        queue.push(commit(1))  // still behind the missed count, so it joins it
        taken += [queue.take(), queue.take(), queue.take()]
        let missed = SQLiteMissedTransactions(commits: 2, rollbacks: 1, changes: 2, tables: ["t"], schemaChanged: false)
        #expect(taken == [commit(2), .rolledBack(tables: ["t"]), commit(2), .missed(missed), nil])
        for _ in 0..<10 { queue.push(.rolledBack(tables: [])) }
        #expect(queue.count == 5, "at most the limit's events, then one count")
    }

    @Test func anObserverGetsOnlyWhatItAskedFor() {
        let observer = ChangeObserver(tables: ["A"], operations: [.insert, .delete], limit: 2, deliver: { _ in }, close: { _ in })
        let commit = TransactionChanges.Committed(
            tables: ["a", "b"],
            rows: [row("a", .insert, 1), row("b", .insert, 2), row("a", .update, 1), row("a", .delete, 1), row("a", .insert, 4)],
            unlistedRows: 0, schemaChanged: false)
        #expect(
            observer.event(for: commit)
                == .committed(
                    SQLiteCommittedChanges(
                        changes: [row("a", .insert, 1), row("a", .delete, 1)], tables: ["a"], unlistedChanges: 1)))
        let other = TransactionChanges.Committed(tables: ["b"], rows: [row("b", .insert, 1)], unlistedRows: 0, schemaChanged: false)
        #expect(observer.event(for: other) == nil)
        let schemaOnly = TransactionChanges.Committed(tables: [], rows: [], unlistedRows: 0, schemaChanged: true)
        #expect(observer.event(for: schemaOnly) == .committed(SQLiteCommittedChanges(changes: [], tables: [], schemaChanged: true)))
        #expect(observer.event(for: .init(tables: ["b"], rows: 1, schemaChanged: false)) == nil)
        #expect(observer.event(for: .init(tables: ["a", "b"], rows: 2, schemaChanged: false)) == .rolledBack(tables: ["a"]))
    }
}
