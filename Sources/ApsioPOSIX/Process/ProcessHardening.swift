#if canImport(Glibc)
internal import Glibc
#endif
internal import CLinux

/// What a program that holds secrets in memory only (device tokens, tester proofs, app keys) does
/// at start so that they stay there: no core file, and no other process of its user reading it.
package enum ProcessHardening {
    /// Clears the process's dumpable flag and sets RLIMIT_CORE to 0, soft and hard.
    ///
    /// Not dumpable, the kernel writes no core for it (with the default `fs.suid_dumpable=0`),
    /// other processes of the same user may not ptrace it or read its memory, and its /proc
    /// entries belong to root; the process itself still reads and writes its own. The limit covers
    /// a machine set to `suid_dumpable=2`, and systemd-coredump, which stores nothing for a process
    /// whose limit is 0. Under the unit's system call filter (which leaves out `@resources`) the
    /// limit may not be settable, but `LimitCORE=0` has set it already: that is no failure.
    package static func disableCoreDumps() throws(SystemError) {
        guard apsio_prctl_set_dumpable(0) == 0 else { throw SystemError.last("prctl(PR_SET_DUMPABLE)") }
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        guard setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none) != 0 else { return }
        let failure = SystemError.last("setrlimit(RLIMIT_CORE)")
        var current = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &current) == 0, current.rlim_cur == 0 else {
            throw failure
        }
    }
}
