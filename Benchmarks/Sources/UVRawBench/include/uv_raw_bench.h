// Raw libuv baselines for PromiseUVBench: the same work as the PromiseUV candidates, written
// the way a C program would, so both run in one process and one build.
#ifndef UV_RAW_BENCH_H
#define UV_RAW_BENCH_H

#include <stdint.h>

/// Starts `count` uv_timer_t handles (each its own handle) due after `timeout_ms` on a fresh
/// loop, runs the loop until all fired, closes every handle and the loop. Returns how many
/// fired, or -1 on error.
int64_t uv_raw_timers(int64_t count, uint64_t timeout_ms);

/// A loop on its own thread with one uv_async_t; `uv_raw_round_trips` makes `count` round
/// trips: uv_async_send, the async callback posts a semaphore, the caller waits on it.
/// Returns 0, or -1 on error.
int uv_raw_round_trips(int64_t count);

/// A counting semaphore (uv_sem_t) for the Swift candidates, so both sides wait the same way.
typedef struct uv_raw_sem uv_raw_sem;
uv_raw_sem *uv_raw_sem_create(void);
void uv_raw_sem_post(uv_raw_sem *sem);
void uv_raw_sem_wait(uv_raw_sem *sem);
void uv_raw_sem_destroy(uv_raw_sem *sem);

#endif
