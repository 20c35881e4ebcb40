import Glibc

/// Which sanitizer runtime the test process runs under, found by a symbol only that runtime
/// exports. Tests whose cost a sanitizer multiplies (allocation-heavy loops in C libraries)
/// size their load by it; what they check stays the same.
package enum Sanitizer {
    /// AddressSanitizer's runtime is linked in.
    package static let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
    /// ThreadSanitizer's runtime is linked in.
    package static let thread = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_acquire") != nil
}
