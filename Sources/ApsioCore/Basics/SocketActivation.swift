/// The sd_listen_fds(3) protocol read from its three environment variables, without libsystemd:
/// which inherited descriptor is the control socket.
///
/// systemd passes sockets as descriptors 3, 4, … and says so in `LISTEN_FDS`, for the process
/// named by `LISTEN_PID` only (a child that inherited the environment must not take them), with
/// their `FileDescriptorName=`s, colon-separated, in `LISTEN_FDNAMES`.
package enum SocketActivation {
    /// The first descriptor systemd passes (SD_LISTEN_FDS_START).
    package static let firstDescriptor: Int32 = 3
    /// More than this is not a list of sockets systemd passed to us.
    static let maxDescriptors = 1024

    /// The descriptor to serve on, or nil when none was passed to this process. With names, the
    /// first whose name is one of `names`; without, or when none matches, the only one passed.
    package static func descriptor(
        listenPID: String?, listenFDs: String?, listenFDNames: String?, processID: Int32, names: Set<String>
    ) -> Int32? {
        guard let listenPID, let pid = Int32(listenPID), pid == processID else { return nil }
        guard let listenFDs, let count = Int(listenFDs), (1...maxDescriptors).contains(count) else { return nil }
        if let listenFDNames {
            let given = listenFDNames.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            if given.count == count, let index = given.firstIndex(where: names.contains) {
                return firstDescriptor + Int32(index)
            }
        }
        return count == 1 ? firstDescriptor : nil
    }
}
