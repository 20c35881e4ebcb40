// The raw C libcurl baseline for PromiseCurlBench: a curl_multi loop written the way a C
// program would, with the options PromiseCurl sets on every handle, so both run in one process
// and one build. It is the ceiling: easy handles and buffers are reused, nothing is handed on.
#ifndef CURL_RAW_BENCH_H
#define CURL_RAW_BENCH_H

#include <stdint.h>

/// A multi handle with `concurrency` easy handles, max total and per-host connections set to
/// `concurrency`. Kept across rounds, like the Swift clients, so connections are reused.
typedef struct curl_raw_bench curl_raw_bench;

/// NULL on failure.
curl_raw_bench *curl_raw_create(int concurrency);
void curl_raw_destroy(curl_raw_bench *bench);

/// `count` GETs of `url`, keeping `concurrency` in flight: when one completes, its easy handle
/// is re-added for the next. Each body is collected in the handle's buffer. Returns the bytes
/// of all bodies, or -1 when a transfer failed or a status was not 200.
int64_t curl_raw_requests(curl_raw_bench *bench, const char *url, int64_t count);

/// One GET of `url` with the body collected in memory (a buffer grown with realloc, freed
/// afterwards). Returns the body's size, or -1 on failure.
int64_t curl_raw_download_memory(curl_raw_bench *bench, const char *url);

/// One GET of `url` with the body written to `path` with write(2) (created or truncated; not
/// fsynced). Returns the body's size, or -1 on failure.
int64_t curl_raw_download_file(curl_raw_bench *bench, const char *url, const char *path);

/// One GET of `url` whose body is looked at chunk by chunk in the write callback and not kept,
/// the C counterpart of a streamed body's consumer. Returns the body's size, or -1 on failure.
int64_t curl_raw_download_count(curl_raw_bench *bench, const char *url);

/// curl_version(), for the report.
const char *curl_raw_version(void);

#endif
