#if canImport(Glibc)
internal import Glibc
#endif

/// This process: its number and whom it runs as.
package enum ProcessIdentity {
    package static var processID: Int32 { getpid() }
    package static var effectiveUserID: UInt32 { geteuid() }
    package static var effectiveGroupID: UInt32 { getegid() }

    package static var supplementaryGroups: [UInt32] {
        let count = getgroups(0, nil)
        var groups = [gid_t](repeating: 0, count: Int(max(count, 0)))
        let filled = groups.isEmpty ? 0 : getgroups(Int32(groups.count), &groups)
        return Array(groups.prefix(Int(max(filled, 0))))
    }
}
