import ApsioCore
import ApsioLive
import ApsioState
import Foundation
import Glibc
import Testing
@testable import ApsioTestSupport

/// The built apsiod and apsioctl, the operator as root and another local user as `nobody`: the
/// operator's commands reach the daemon whatever another user holds open on its socket
/// (docs/control.md, "Connections"), and a setting is never stored as if the daemon were stopped
/// while it runs.
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
            try await poll("every watch following or ended, and the half lines sent", seconds: 120, every: .milliseconds(100)) {
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

    enum SocketLoss: String, CaseIterable, Sendable {
        /// Its file removed (a cleanup of /run, a second daemon's stop).
        case removed
        /// Another socket in its place that nobody listens on.
        case deadSocketInItsPlace
    }

    /// apsioctl took a socket it could not reach for a daemon not running, and stored the change for
    /// the next start ("it takes effect when apsiod starts"): live stayed on, the operator told
    /// otherwise. apsiod holds its state directory's lock while it runs; apsioctl asks that.
    @Test(arguments: SocketLoss.allCases)
    func anUnreachableSocketOfARunningDaemonIsAFailureNotAStoredSetting(_ loss: SocketLoss) async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy())
            let allow = try await h.ctl(["allow-live", "on", AgentHarness.app])
            #expect(allow.status == 0, "\(allow.stderr)")
            let socketPath = h.runtime + "/control.sock"
            #expect(unlink(socketPath) == 0)
            if loss == .deadSocketInItsPlace { try Self.bindWithoutListening(socketPath) }

            let off = try await h.ctl(["allow-live", "off", AgentHarness.app])
            #expect(off.status == 1, "\(off.stdout)")
            #expect(off.stderr.contains("apsiod runs but its control socket cannot be reached"), "\(off.stderr)")
            #expect(off.stderr.split(separator: "\n").count == 1)
            #expect(!off.stdout.contains("Live inspection off"))
            #expect(!off.stderr.contains("takes effect when apsiod starts"))
            // Nothing was written behind the running daemon's back.
            let settings = try SettingsStore(layout: StateLayout(root: h.state)).load()
            #expect(settings.allowsLive(try AppName(AgentHarness.app)))

            let json = try await h.ctl(["--json", "allow-live", "off", AgentHarness.app])
            #expect(json.status == 1)
            #expect(JSONValueEncoding.decode(Array(json.stdout.utf8))?["error"] == .string("failed"), "\(json.stdout)")

            // A command that needs the daemon says the same, not "start it": it runs. `nobody`
            // may not open the daemon's lock file and asks the kernel's table of locks instead.
            for user in [nil, "nobody"] {
                let status = try await h.ctl(["status"], user: user)
                #expect(status.status == 1, "\(user ?? "root"): \(status.stderr)")
                #expect(status.stderr.contains("apsiod runs but its control socket cannot be reached"), "\(status.stderr)")
            }
        }
    }

    /// A unix socket bound at `path` and closed without listening: connecting is refused.
    static func bindWithoutListening(_ path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw DaemonTestError("socket: \(errno)") }
        defer { close(fd) }
        try bindUnixSocket(fd, to: path)
    }
}
