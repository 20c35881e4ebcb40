// PromiseSQLite re-exports PromiseCore, so `import PromiseSQLite` alone gives promises and SQLite.
@_exported public import PromiseCore
