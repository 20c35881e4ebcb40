// The raw C baseline for PromiseSQLiteBench: the same work as the Swift candidates, done with
// sqlite3 calls and nothing else. Each function returns a checksum so nothing is optimized out.
#ifndef RAW_SQLITE_H
#define RAW_SQLITE_H

#include <stdint.h>

/// Opens `path` with the settings every candidate uses (synchronous FULL, rollback journal);
/// NULL on failure.
void *raw_open(const char *path);
/// Runs `sql` (several statements allowed); 0 on success.
int raw_exec(void *db, const char *sql);
void raw_close(void *db);

/// `count` inserts of (id, name, score) into items, in one transaction.
int64_t raw_insert(void *db, int count);
/// `count` point queries `SELECT name FROM items WHERE id = ?` over ids 1...rows; sums name lengths.
int64_t raw_point_queries(void *db, int count, int rows);
/// Reads every row of items into an array of structs (names copied), then frees it.
int64_t raw_scan(void *db);
/// The same over the first `limit` rows (all of them when `limit` is negative).
int64_t raw_scan_limit(void *db, int limit);

/// sqlite3_libversion(), for the report.
const char *sqlite3_libversion_for_bench(void);

#endif
