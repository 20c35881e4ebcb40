internal import Glibc

/// How many CPUs the machine has online.
package enum ProcessorCount {
    /// The online CPUs (`sysconf(_SC_NPROCESSORS_ONLN)`), at least 1. Read once, at first use.
    package static let online: Int = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
}
