#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import: SQLite copies the bytes before the
/// bind call returns.
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// SQLITE_STATIC: the bytes stay valid and unchanged until the statement is reset or rebound.
static inline sqlite3_destructor_type csqlite_static(void) {
    return SQLITE_STATIC;
}

/// sqlite3_db_config is variadic; this is its (int, int*) form, used for the on/off options
/// (SQLITE_DBCONFIG_DEFENSIVE, SQLITE_DBCONFIG_DQS_DML, ...). `*current` receives the new value.
static inline int csqlite_db_config_flag(sqlite3 *db, int option, int value, int *current) {
    return sqlite3_db_config(db, option, value, current);
}

#endif
