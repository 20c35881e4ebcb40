#include "CSoakSupport.h"

#include <malloc.h>

size_t soak_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

void soak_trim_heap(void) {
    malloc_trim(0);
}
