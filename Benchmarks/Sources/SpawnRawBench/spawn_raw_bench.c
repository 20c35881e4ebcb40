#include "spawn_raw_bench.h"

#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

int64_t spawn_raw_loop(const char *path, int64_t count) {
    int64_t succeeded = 0;
    char *argv[] = {(char *)path, 0};
    for (int64_t i = 0; i < count; i++) {
        pid_t pid;
        if (posix_spawn(&pid, path, 0, 0, argv, environ) != 0) return -1;
        int status = 0;
        while (waitpid(pid, &status, 0) < 0) {}
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) succeeded += 1;
    }
    return succeeded;
}
