// The one Swift runtime entry point PromiseCore calls directly. Only
// PromiseCore/Internal/UpstreamLink.swift imports this module.
#ifndef C_PROMISE_RUNTIME_SHIM_H
#define C_PROMISE_RUNTIME_SHIM_H

#include <stdbool.h>

// Takes a strong reference to the native Swift object at `object` unless its deinitializer
// has begun, and says whether it did. `object` must point to an object whose memory is still
// valid (its deinitializer may be running, but has not returned).
//
// swift_tryRetain is what the runtime itself uses to load a weak reference: it increments the
// strong count atomically only while the object is not deinitializing, and returns the object,
// or NULL when it is. It is declared here, inside the function, so that it is not imported
// into Swift under its runtime name.
static inline bool promise_retain_if_alive(void *object) {
    extern void *swift_tryRetain(void *object);
    return swift_tryRetain(object) != 0;
}

#endif
