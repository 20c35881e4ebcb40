#ifndef C_SOAK_SUPPORT_H
#define C_SOAK_SUPPORT_H

#include <stddef.h>

/// Bytes malloc has handed out and not had back, over all arenas (glibc's mallinfo2:
/// uordblks + hblkhd).
size_t soak_heap_in_use(void);

/// Gives the kernel back the free memory malloc keeps in all its arenas (glibc's
/// malloc_trim(0)).
void soak_trim_heap(void);

#endif
