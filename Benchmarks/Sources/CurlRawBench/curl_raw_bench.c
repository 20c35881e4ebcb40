#include "curl_raw_bench.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum sink_kind { SINK_SMALL, SINK_GROW, SINK_FILE, SINK_COUNT };

typedef struct {
    CURL *easy;
    enum sink_kind kind;
    char *buffer;
    size_t length;
    size_t capacity;
    int fd;
    int failed;
    unsigned long checksum;
} slot;

struct curl_raw_bench {
    CURLM *multi;
    int concurrency;
    slot *slots;
};

static size_t on_write(char *data, size_t size, size_t count, void *context) {
    slot *s = context;
    size_t n = size * count;
    if (s->kind == SINK_COUNT) {
        // A consumer that looks at each chunk as it arrives: a checksum of its first byte.
        if (n > 0) s->checksum += (unsigned char)data[0];
        s->length += n;
        return n;
    }
    if (s->kind == SINK_FILE) {
        size_t done = 0;
        while (done < n) {
            ssize_t w = write(s->fd, data + done, n - done);
            if (w < 0) {
                if (errno == EINTR) continue;
                s->failed = 1;
                return 0;
            }
            done += (size_t)w;
        }
        s->length += n;
        return n;
    }
    if (s->length + n > s->capacity) {
        size_t capacity = s->capacity ? s->capacity : 64;
        while (capacity < s->length + n) capacity *= 2;
        char *grown = realloc(s->buffer, capacity);
        if (!grown) {
            s->failed = 1;
            return 0;
        }
        s->buffer = grown;
        s->capacity = capacity;
    }
    memcpy(s->buffer + s->length, data, n);
    s->length += n;
    return n;
}

/// The options PromiseCurl sets on every handle for a GET (Transfer.configure), same values.
static int configure(CURL *easy, slot *s) {
    int bad = 0;
    bad |= curl_easy_setopt(easy, CURLOPT_PRIVATE, s) != CURLE_OK;
    bad |= curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
    bad |= curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK;
    bad |= curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") != CURLE_OK;
    bad |= curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L) != CURLE_OK;
    bad |= curl_easy_setopt(easy, CURLOPT_MAXREDIRS, 10L) != CURLE_OK;
    bad |= curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, 10000L) != CURLE_OK;
    bad |= curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS) != CURLE_OK;
    // No CURLOPT_PIPEWAIT: PromiseCurl sets it only where a request can multiplex (https or
    // h2c prior knowledge), and the benchmark's URLs are plain http.
    bad |= curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "") != CURLE_OK;
    bad |= curl_easy_setopt(easy, CURLOPT_USERAGENT, "swift-promise PromiseCurl") != CURLE_OK;
    bad |= curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L) != CURLE_OK;
    bad |= curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_write) != CURLE_OK;
    bad |= curl_easy_setopt(easy, CURLOPT_WRITEDATA, s) != CURLE_OK;
    return bad ? -1 : 0;
}

curl_raw_bench *curl_raw_create(int concurrency) {
    if (concurrency < 1 || curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return NULL;
    curl_raw_bench *bench = calloc(1, sizeof *bench);
    if (!bench) return NULL;
    bench->concurrency = concurrency;
    bench->multi = curl_multi_init();
    bench->slots = calloc((size_t)concurrency, sizeof(slot));
    if (!bench->multi || !bench->slots) goto fail;
    curl_multi_setopt(bench->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)concurrency);
    curl_multi_setopt(bench->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)concurrency);
    curl_multi_setopt(bench->multi, CURLMOPT_MAXCONNECTS, (long)(concurrency < 16 ? 16 : concurrency));
    for (int i = 0; i < concurrency; i++) {
        slot *s = &bench->slots[i];
        s->fd = -1;
        s->easy = curl_easy_init();
        if (!s->easy || configure(s->easy, s) != 0) goto fail;
    }
    return bench;
fail:
    curl_raw_destroy(bench);
    return NULL;
}

void curl_raw_destroy(curl_raw_bench *bench) {
    if (!bench) return;
    for (int i = 0; bench->slots && i < bench->concurrency; i++) {
        if (bench->slots[i].easy) curl_easy_cleanup(bench->slots[i].easy);
        free(bench->slots[i].buffer);
    }
    free(bench->slots);
    if (bench->multi) curl_multi_cleanup(bench->multi);
    free(bench);
}

static void start(curl_raw_bench *bench, slot *s, const char *url) {
    s->length = 0;
    s->failed = 0;
    curl_easy_setopt(s->easy, CURLOPT_URL, url);
    curl_multi_add_handle(bench->multi, s->easy);
}

/// Runs the multi loop until `count` transfers over `handles` slots have completed.
static int64_t run(curl_raw_bench *bench, const char *url, int64_t count, int handles) {
    int64_t issued = 0, completed = 0, bytes = 0;
    int failed = 0;
    for (int i = 0; i < handles && issued < count; i++, issued++) start(bench, &bench->slots[i], url);
    while (completed < count) {
        int running = 0;
        if (curl_multi_perform(bench->multi, &running) != CURLM_OK) return -1;
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(bench->multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            CURLcode result = message->data.result;
            slot *s = NULL;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&s);
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            curl_multi_remove_handle(bench->multi, easy);
            if (result != CURLE_OK || status != 200 || s->failed) failed = 1;
            bytes += (int64_t)s->length;
            completed++;
            if (issued < count) {
                issued++;
                start(bench, s, url);
            }
        }
        if (completed < count && curl_multi_poll(bench->multi, NULL, 0, 1000, NULL) != CURLM_OK) return -1;
    }
    return failed ? -1 : bytes;
}

int64_t curl_raw_requests(curl_raw_bench *bench, const char *url, int64_t count) {
    for (int i = 0; i < bench->concurrency; i++) bench->slots[i].kind = SINK_SMALL;
    return run(bench, url, count, bench->concurrency);
}

int64_t curl_raw_download_memory(curl_raw_bench *bench, const char *url) {
    slot *s = &bench->slots[0];
    s->kind = SINK_GROW;
    free(s->buffer);
    s->buffer = NULL;
    s->capacity = 0;
    int64_t bytes = run(bench, url, 1, 1);
    free(s->buffer);
    s->buffer = NULL;
    s->capacity = 0;
    s->kind = SINK_SMALL;
    return bytes;
}

int64_t curl_raw_download_file(curl_raw_bench *bench, const char *url, const char *path) {
    slot *s = &bench->slots[0];
    s->kind = SINK_FILE;
    s->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (s->fd < 0) return -1;
    int64_t bytes = run(bench, url, 1, 1);
    if (close(s->fd) != 0) bytes = -1;
    s->fd = -1;
    s->kind = SINK_SMALL;
    return bytes;
}

int64_t curl_raw_download_count(curl_raw_bench *bench, const char *url) {
    slot *s = &bench->slots[0];
    s->kind = SINK_COUNT;
    int64_t bytes = run(bench, url, 1, 1);
    s->kind = SINK_SMALL;
    return bytes;
}

const char *curl_raw_version(void) { return curl_version(); }
