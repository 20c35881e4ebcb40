#ifndef SPAWN_RAW_BENCH_H
#define SPAWN_RAW_BENCH_H
#include <stdint.h>

// Spawns `path` (no arguments) `count` times with posix_spawn, waiting for each with waitpid;
// returns how many exited with status 0, or -1 when a spawn failed.
int64_t spawn_raw_loop(const char *path, int64_t count);

#endif
