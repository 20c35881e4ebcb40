#include "uv_raw_bench.h"

#include <stdlib.h>
#include <uv.h>

// MARK: timers

static int64_t fired;

static void on_timer(uv_timer_t *timer) {
    (void)timer;
    fired += 1;
}

int64_t uv_raw_timers(int64_t count, uint64_t timeout_ms) {
    uv_loop_t loop;
    if (uv_loop_init(&loop) != 0) return -1;
    uv_timer_t *timers = malloc(sizeof(uv_timer_t) * (size_t)count);
    if (timers == NULL) return -1;
    fired = 0;
    for (int64_t i = 0; i < count; i++) {
        uv_timer_init(&loop, &timers[i]);
        uv_timer_start(&timers[i], on_timer, timeout_ms, 0);
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    for (int64_t i = 0; i < count; i++) {
        uv_close((uv_handle_t *)&timers[i], NULL);
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    int64_t result = fired;
    if (uv_loop_close(&loop) != 0) result = -1;
    free(timers);
    return result;
}

// MARK: round trips

struct uv_raw_sem {
    uv_sem_t sem;
};

uv_raw_sem *uv_raw_sem_create(void) {
    uv_raw_sem *sem = malloc(sizeof(uv_raw_sem));
    if (sem == NULL || uv_sem_init(&sem->sem, 0) != 0) return NULL;
    return sem;
}

void uv_raw_sem_post(uv_raw_sem *sem) { uv_sem_post(&sem->sem); }
void uv_raw_sem_wait(uv_raw_sem *sem) { uv_sem_wait(&sem->sem); }

void uv_raw_sem_destroy(uv_raw_sem *sem) {
    uv_sem_destroy(&sem->sem);
    free(sem);
}

struct round_trip {
    uv_loop_t loop;
    uv_async_t async;
    uv_async_t stop;
    uv_sem_t done;
};

static void on_async(uv_async_t *async) {
    struct round_trip *trip = async->data;
    uv_sem_post(&trip->done);
}

static void on_stop(uv_async_t *stop) {
    struct round_trip *trip = stop->data;
    uv_close((uv_handle_t *)&trip->async, NULL);
    uv_close((uv_handle_t *)&trip->stop, NULL);
}

static void run_loop(void *arg) {
    struct round_trip *trip = arg;
    uv_run(&trip->loop, UV_RUN_DEFAULT);
}

int uv_raw_round_trips(int64_t count) {
    struct round_trip trip;
    if (uv_loop_init(&trip.loop) != 0) return -1;
    uv_async_init(&trip.loop, &trip.async, on_async);
    uv_async_init(&trip.loop, &trip.stop, on_stop);
    trip.async.data = &trip;
    trip.stop.data = &trip;
    uv_sem_init(&trip.done, 0);
    uv_thread_t thread;
    if (uv_thread_create(&thread, run_loop, &trip) != 0) return -1;
    for (int64_t i = 0; i < count; i++) {
        uv_async_send(&trip.async);
        uv_sem_wait(&trip.done);
    }
    uv_async_send(&trip.stop);
    uv_thread_join(&thread);
    uv_sem_destroy(&trip.done);
    return uv_loop_close(&trip.loop) == 0 ? 0 : -1;
}
