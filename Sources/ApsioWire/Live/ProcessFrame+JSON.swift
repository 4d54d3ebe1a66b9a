package import ApsioCore
package import ApsioJSON

/// The wireframe as the live channel carries it (a `frames` body's `wireframe`, a screenshot's
/// result): the members its coding keys name, an absent value left out. Written here rather than
/// through Foundation's JSONEncoder, which would be the daemon's only reason to link Foundation.
extension ProcessFrame {
    package var json: JSONValue {
        var members: [String: JSONValue] = [
            "active_state": .string(activeState), "sub_state": .string(subState),
            "processes": .array(processes.map(\.json)), "omitted_processes": .number(Double(omittedProcesses)),
        ]
        if let tasks { members["tasks"] = .number(Double(tasks)) }
        if let memoryBytes { members["memory_bytes"] = .number(Double(memoryBytes)) }
        if let sockets { members["sockets"] = .array(sockets.map(\.json)) }
        return .object(members)
    }
}

extension ProcessEntry {
    package var json: JSONValue {
        var members: [String: JSONValue] = [
            "pid": .number(Double(pid)), "ppid": .number(Double(ppid)), "comm": .string(comm), "state": .string(state),
            "threads": .number(Double(threads)), "rss_bytes": .number(Double(rssBytes)),
        ]
        if let argv0 { members["argv0"] = .string(argv0) }
        if let cpuPercent { members["cpu_percent"] = .number(cpuPercent) }
        return .object(members)
    }
}

extension ListeningSocket {
    package var json: JSONValue {
        .object(["transport": .string(transport.rawValue), "address": .string(address), "port": .number(Double(port))])
    }
}
