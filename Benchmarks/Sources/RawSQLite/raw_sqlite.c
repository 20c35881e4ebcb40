#include "raw_sqlite.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *raw_open(const char *path) {
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        sqlite3_close_v2(db);
        return NULL;
    }
    sqlite3_exec(db, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON", NULL, NULL, NULL);
    return db;
}

int raw_exec(void *db, const char *sql) {
    return sqlite3_exec((sqlite3 *)db, sql, NULL, NULL, NULL);
}

void raw_close(void *db) {
    sqlite3_close_v2((sqlite3 *)db);
}

int64_t raw_insert(void *handle, int count) {
    sqlite3 *db = handle;
    sqlite3_stmt *insert = NULL;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) return -1;
    if (sqlite3_prepare_v2(db, "INSERT INTO items(id, name, score) VALUES (?, ?, ?)", -1, &insert, NULL) != SQLITE_OK) return -1;
    char name[32];
    for (int i = 1; i <= count; i++) {
        int length = snprintf(name, sizeof name, "name %d", i);
        sqlite3_bind_int64(insert, 1, i);
        sqlite3_bind_text(insert, 2, name, length, SQLITE_TRANSIENT);
        sqlite3_bind_double(insert, 3, i * 0.5);
        if (sqlite3_step(insert) != SQLITE_DONE) return -1;
        sqlite3_reset(insert);
    }
    sqlite3_finalize(insert);
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) return -1;
    return sqlite3_last_insert_rowid(db);
}

int64_t raw_point_queries(void *handle, int count, int rows) {
    sqlite3 *db = handle;
    sqlite3_stmt *select = NULL;
    if (sqlite3_prepare_v2(db, "SELECT name FROM items WHERE id = ?", -1, &select, NULL) != SQLITE_OK) return -1;
    int64_t sum = 0;
    char copy[64];
    for (int i = 0; i < count; i++) {
        sqlite3_bind_int64(select, 1, (int64_t)((i * 7919L) % rows) + 1);
        if (sqlite3_step(select) == SQLITE_ROW) {
            int length = sqlite3_column_bytes(select, 0);
            const unsigned char *text = sqlite3_column_text(select, 0);
            memcpy(copy, text, length < 63 ? length : 63);
            sum += length + copy[0];
        }
        sqlite3_reset(select);
    }
    sqlite3_finalize(select);
    return sum;
}

struct item {
    int64_t id;
    char *name;
    double score;
};

int64_t raw_scan(void *handle) {
    return raw_scan_limit(handle, -1);
}

int64_t raw_scan_limit(void *handle, int limit) {
    sqlite3 *db = handle;
    sqlite3_stmt *select = NULL;
    if (sqlite3_prepare_v2(db, "SELECT id, name, score FROM items LIMIT ?", -1, &select, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_int(select, 1, limit);
    size_t capacity = 1024, count = 0;
    struct item *items = malloc(capacity * sizeof *items);
    while (sqlite3_step(select) == SQLITE_ROW) {
        if (count == capacity) {
            capacity *= 2;
            items = realloc(items, capacity * sizeof *items);
        }
        int length = sqlite3_column_bytes(select, 1);
        char *name = malloc(length + 1);
        memcpy(name, sqlite3_column_text(select, 1), length + 1);
        items[count].id = sqlite3_column_int64(select, 0);
        items[count].name = name;
        items[count].score = sqlite3_column_double(select, 2);
        count++;
    }
    sqlite3_finalize(select);
    int64_t sum = 0;
    for (size_t i = 0; i < count; i++) {
        sum += items[i].id + (int64_t)strlen(items[i].name);
        free(items[i].name);
    }
    free(items);
    return sum;
}

const char *sqlite3_libversion_for_bench(void) {
    return sqlite3_libversion();
}
