import Foundation

/// The processes a fixture's server started itself (nginx's workers, a Redis node's fork sending
/// a copy to a replica), so that stopping the server by its pid stops them too.
enum ProcessChildren {
    /// The pids whose parent is `pid`, from /proc.
    static func of(_ pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let child = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // `PID (COMM) STATE PPID …`: the command may hold spaces and parentheses.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
        }
    }
}
