import ApsioCore
import ApsioJSON
import ApsioWire
import Foundation
import Testing

/// The wireframe's JSON is what the frame's coding keys say, member for member, as Foundation's
/// JSONEncoder wrote it before: the daemon no longer links Foundation to write it, and a viewer
/// must not see a member renamed, a number changed or an absent value written as null.
@Suite struct ProcessFrameJSONTests {
    static func viaFoundation(_ frame: ProcessFrame) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try JSONParser(maxBytes: .max, maxDepth: 64).parse(Array(try encoder.encode(frame)))
    }

    static let full = ProcessFrame(
        activeState: "active", subState: "running", tasks: 7, memoryBytes: 123_456_789_012,
        processes: [
            ProcessEntry(pid: 812, ppid: 1, comm: "nginx", argv0: "nginx: master", state: "S", threads: 1, rssBytes: 9_437_184, cpuPercent: 0.25),
            ProcessEntry(pid: 813, ppid: 812, comm: "nginx", argv0: nil, state: "R", threads: 4, rssBytes: 0, cpuPercent: nil),
        ],
        omittedProcesses: 3,
        sockets: [
            ListeningSocket(transport: .tcp, address: "0.0.0.0", port: 80),
            ListeningSocket(transport: .udp, address: "::", port: 5353),
        ])

    static let sparse = ProcessFrame(
        activeState: "inactive", subState: "dead", tasks: nil, memoryBytes: nil, processes: [], sockets: nil)

    @Test(arguments: [full, sparse])
    func theSameAsFoundationWroteIt(_ frame: ProcessFrame) throws {
        #expect(frame.json == (try Self.viaFoundation(frame)))
    }

    @Test func anAbsentValueIsLeftOutNotNull() {
        guard case .object(let members) = Self.sparse.json else {
            Issue.record("not an object")
            return
        }
        #expect(Set(members.keys) == ["active_state", "sub_state", "processes", "omitted_processes"])
    }
}
