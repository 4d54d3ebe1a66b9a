/// One process of a unit in a process frame (LINUX-PROFILE §10). Only world-readable facts from
/// `/proc/PID/stat`; masked as 10.3 and 10.4 ask: no argument and no environment, ever.
package struct ProcessEntry: Sendable, Equatable, Codable {
    package var pid: Int32
    package var ppid: Int32
    /// `comm`: the kernel's name for the task, at most 15 bytes.
    package var comm: String
    /// `argv0`: the base name of `argv[0]`, cut as `ProcessName` cuts it; absent for kernel threads
    /// and when `cmdline` cannot be read.
    package var argv0: String?
    /// `state`: the one-letter state of `ps` (`R`, `S`, `D`, `Z`, `T`, `t`, `X`, `I`).
    package var state: String
    package var threads: Int
    /// `rss_bytes`: resident memory, shared pages included.
    package var rssBytes: Int64
    /// `cpu_percent`: percent of one CPU since the previous frame; absent in a process's first frame.
    package var cpuPercent: Double?

    enum CodingKeys: String, CodingKey {
        case pid, ppid, comm, argv0, state, threads
        case rssBytes = "rss_bytes"
        case cpuPercent = "cpu_percent"
    }

    package init(
        pid: Int32, ppid: Int32, comm: String, argv0: String?, state: String, threads: Int, rssBytes: Int64,
        cpuPercent: Double?
    ) {
        self.pid = pid
        self.ppid = ppid
        self.comm = comm
        self.argv0 = argv0
        self.state = state
        self.threads = threads
        self.rssBytes = rssBytes
        self.cpuPercent = cpuPercent
    }
}
