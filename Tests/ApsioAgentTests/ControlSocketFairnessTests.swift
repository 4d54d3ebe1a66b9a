import ApsioCore
import ApsioLive
import Foundation
import Glibc
import Testing
@testable import ApsioTestSupport

/// The built apsiod and apsioctl, the operator as root and another local user as `nobody`: the
/// operator's commands reach the daemon whatever another user holds open on its socket
/// (docs/control.md, "Connections").
@Suite(.serialized) struct ControlSocketFairnessTests {
    /// Watches are never closed for idling, so one user's could take every place the socket had:
    /// `allow-live off` was then refused `busy` for as long as that user liked, and live stayed on.
    @Test func anUnprivilegedUsersHeldWatchesNeverKeepRootFromTurningLiveOff() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy())
            let allow = try await h.ctl(["allow-live", "on", AgentHarness.app])
            #expect(allow.status == 0, "\(allow.stderr)")

            let asNobody = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
            var watches: [RunningChild] = []
            for index in 0..<70 {
                let command = asNobody + [BuiltBinaries.apsioctl] + h.directories + ["--json", "watch"]
                watches.append(try RunningChild(
                    command[0], Array(command.dropFirst()), environment: [:], directory: h.root.path, name: "watch-\(index)"))
            }
            // And more connections that send half a request and then nothing: never answered,
            // closed only when they have been idle for a minute.
            let halfLines = try RunningChild(
                asNobody[0], Array(asNobody.dropFirst()) + ["/usr/bin/python3", "-c", Self.halfLineHolder, h.runtime + "/control.sock", "30"],
                environment: [:], directory: h.root.path, name: "half-lines")
            let started = watches
            try await within(120, "every watch following or ended, and the half lines sent") {
                started.allSatisfy { !$0.isRunning || $0.stdout.contains("\"ok\":true") } && halfLines.stdout.contains("sent")
            }
            #expect(halfLines.isRunning, "the half lines are still held: \(halfLines.stderr)")

            let off = try await h.ctl(["allow-live", "off", AgentHarness.app])
            #expect(off.status == 0, "\(off.stderr)")
            #expect(off.stdout.contains("Live inspection off for demo"))
            let status = try await h.ctl(["--json", "status"])
            #expect(status.status == 0, "\(status.stderr)")
            let app = JSONValueEncoding.decode(Array(status.stdout.utf8))?["apps"]?.arrayValue?.first
            #expect(app?["allow_live"] == .bool(false), "\(status.stdout)")
            // Nor is any other user shut out by the one holding so much.
            let otherUser = try await h.ctl(["status"], user: "daemon")
            #expect(otherUser.status == 0, "\(otherUser.stderr)")
            // The children are killed as their values go.
        }
    }

    /// Connects argv[2] times to the socket at argv[1] and sends each the first half of a request;
    /// prints "sent" and holds them all until killed.
    static let halfLineHolder = """
        import socket, sys, time
        held = []
        for _ in range(int(sys.argv[2])):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(sys.argv[1])
                s.sendall(b'{"command":"sta')
            except OSError:
                pass
            held.append(s)
        print("sent", flush=True)
        time.sleep(600)
        """
}
