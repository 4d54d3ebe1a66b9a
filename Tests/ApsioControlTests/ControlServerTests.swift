import ApsioCore
import ApsioJSON
import Foundation
import Testing
import ApsioControl
@testable import ApsioTestSupport

@Suite struct ControlServerTests {
    // MARK: Requests and answers

    @Test func rootReadsAndChangesEverySetting() async throws {
        try await withControlServer { fixture in
            let client = try fixture.client()
            defer { client.close() }
            #expect(try await client.send(.version) == .version(ApsioVersion.current))
            #expect(try await client.send(.allowLive(true, apps: ["nginx"])) == .changed(apps: ["nginx"]))
            #expect(try await client.send(.consent(.grant, apps: [])) == .changed(apps: ["nginx", "api"]))
            #expect(try await client.send(.dataSaver(true)) == .dataSaver(true))
            guard case .status(let status) = try await client.send(.status(apps: ["nginx"])) else {
                Issue.record("status was not answered with a status")
                return
            }
            #expect(status.dataSaver)
            #expect(status.apps.map(\.name) == ["nginx"])
            #expect(status.apps.first?.allowLive == true)
            #expect(status.apps.first?.consentGranted == true)
            #expect(try await client.send(.reload) == .reloaded(problems: ["apps.d/broken.conf:3: unknown key `Famlies` in [App]"]))
            guard case .apps(let apps) = try await client.send(.apps) else {
                Issue.record("apps was not answered with apps")
                return
            }
            #expect(apps.map(\.installationID) == ["0b6f4a4e-7f55-4a8e-9d7c-2f1d3c4b5a69", "0b6f4a4e-7f55-4a8e-9d7c-2f1d3c4b5a69"])
            let state = fixture.handler.snapshot
            #expect(state.allowLive == ["nginx": true])
            #expect(state.consent == ["nginx": .granted, "api": .granted])
            #expect(state.reloads == 1)
        }
    }

    @Test func anAppThatIsNotConfiguredOrCannotBeANameIsUnknown() async throws {
        try await withControlServer { fixture in
            let client = try fixture.client()
            defer { client.close() }
            for name in ["redis", "../etc", "a/b"] {
                guard case .failed(let error) = try await client.send(.allowLive(true, apps: [name])) else {
                    Issue.record("\(name) was accepted")
                    continue
                }
                #expect(error.code == .unknownApp)
            }
            #expect(fixture.handler.snapshot.allowLive.isEmpty)
        }
    }

    @Test func aMalformedLineIsAnsweredAndTheConnectionGoesOn() async throws {
        try await withControlServer { fixture in
            let client = try fixture.client()
            defer { client.close() }
            for (line, code) in [("hello", "bad_request"), ("{\"command\":\"rm\"}", "unknown_command"), ("{\"command\":\"status\",\"x\":1}", "bad_request"), ("\u{FF}", "bad_request")] {
                try await client.sendLine(Array((line + "\n").utf8))
                let answer = try #require(try await client.readLine(timeout: .seconds(30)))
                let value = try JSONParser().parse(answer)
                #expect(value["ok"] == .bool(false))
                #expect(value["error"] == .string(code), "\(line)")
                #expect(value["message"]?.stringValue?.isEmpty == false)
            }
            #expect(try await client.send(.version) == .version(ApsioVersion.current))
        }
    }

    @Test func anOverlongLineIsRefusedAndTheConnectionClosed() async throws {
        try await withControlServer { fixture in
            let client = try fixture.client()
            defer { client.close() }
            try await client.sendLine([UInt8](repeating: UInt8(ascii: "x"), count: ControlRequest.maxLineBytes + 10))
            let answer = try #require(try await client.readLine(timeout: .seconds(30)))
            #expect(try JSONParser().parse(answer)["error"] == .string("too_large"))
            #expect(try await client.readLine(timeout: .seconds(30)) == nil)
            try await poll("the connection to close") { fixture.server.connectionCount == 0 }
        }
    }

    /// docs/control.md: "at most 4096 bytes, newline included; a longer one is answered too_large
    /// and the connection is closed". 4096 bytes and a newline in one write were answered but the
    /// connection kept, as if the line had fit (found by fuzz/ControlFuzz.swift).
    @Test func aLineOneByteOverWithItsNewlineInTheSameWriteClosesTheConnection() async throws {
        try await withControlServer { fixture in
            let client = try fixture.client()
            defer { client.close() }
            try await client.sendLine([UInt8](repeating: UInt8(ascii: "x"), count: ControlRequest.maxLineBytes) + [0x0A])
            let answer = try #require(try await client.readLine(timeout: .seconds(30)))
            #expect(try JSONParser().parse(answer)["error"] == .string("too_large"))
            #expect(try await client.readLine(timeout: .seconds(5)) == nil)
        }
    }

    @Test func anIdleConnectionIsClosed() async throws {
        var limits = ControlServerLimits()
        limits.idleTimeout = .milliseconds(100)
        try await withControlServer(limits: limits) { fixture in
            let client = try fixture.client()
            defer { client.close() }
            #expect(try await client.readLine(timeout: .seconds(30)) == nil)
        }
    }

    /// docs/control.md, "Connections": a newcomer takes the place of the oldest connection that
    /// waits for a request or watches, when no place is free (here every connection is root's).
    @Test func whenEveryPlaceIsTakenTheOldestIdleConnectionGivesWay() async throws {
        var limits = ControlServerLimits()
        limits.maxConnections = 2
        try await withControlServer(limits: limits) { fixture in
            let first = try fixture.client()
            let second = try fixture.client()
            defer { first.close(); second.close() }
            #expect(try await first.send(.version) == .version(ApsioVersion.current))
            #expect(try await second.send(.version) == .version(ApsioVersion.current))
            let third = try fixture.client()
            defer { third.close() }
            #expect(try await third.send(.version) == .version(ApsioVersion.current))
            #expect(try await first.readLine(timeout: .seconds(30)) == nil, "the oldest was let go")
            #expect(try await second.send(.version) == .version(ApsioVersion.current))
            try await poll("the one let go to close") { fixture.server.connectionCount == 2 }
        }
    }

    /// A request being answered is never cut off for a newcomer: with every place answering one,
    /// the newcomer is told busy and closed, and the answers still come.
    @Test func aNewcomerIsToldBusyWhileEveryPlaceIsAnsweringARequest() async throws {
        var limits = ControlServerLimits()
        limits.maxConnections = 2
        try await withControlServer(limits: limits) { fixture in
            fixture.handler.reloadGate.close()
            let first = try fixture.client()
            let second = try fixture.client()
            defer { first.close(); second.close() }
            async let firstAnswer = first.send(.reload)
            async let secondAnswer = second.send(.reload)
            try await poll("both reloads in progress") { fixture.handler.reloadGate.waitingCount == 2 }
            let third = try fixture.client()
            defer { third.close() }
            let answer = try #require(try await third.readLine(timeout: .seconds(30)))
            #expect(try JSONParser().parse(answer)["error"] == .string("busy"))
            #expect(try await third.readLine(timeout: .seconds(30)) == nil)
            fixture.handler.reloadGate.open()
            guard case .reloaded = try await firstAnswer, case .reloaded = try await secondAnswer else {
                Issue.record("a reload in progress was not answered")
                return
            }
            let fourth = try fixture.client()
            defer { fourth.close() }
            #expect(try await fourth.send(.version) == .version(ApsioVersion.current))
        }
    }

    // MARK: Who may change

    @Test func onlyRootAndTheAdminGroupMayChange() {
        let admin: UInt32 = 990
        #expect(ControlAccess.mayChange(ControlPeer(pid: 1, uid: 0, gid: 0), adminGID: nil))
        #expect(ControlAccess.mayChange(ControlPeer(pid: 1, uid: 0, gid: 0), adminGID: admin))
        #expect(!ControlAccess.mayChange(ControlPeer(pid: 1, uid: 1000, gid: 1000), adminGID: admin))
        #expect(ControlAccess.mayChange(ControlPeer(pid: 1, uid: 1000, gid: 1000, groups: [27, admin]), adminGID: admin))
        #expect(ControlAccess.mayChange(ControlPeer(pid: 1, uid: 1000, gid: admin), adminGID: admin))
        #expect(!ControlAccess.mayChange(ControlPeer(pid: 1, uid: 1000, gid: 1000, groups: [27]), adminGID: nil))
    }

    @Test func theGroupIsLookedUpByName() {
        #expect(ControlAccess(adminGroup: "root").groupID() == 0)
        #expect(ControlAccess(adminGroup: "apsio-no-such-group").groupID() == nil)
    }

    @Test func theKernelSaysWhoThePeerIs() async throws {
        try await withControlServer { fixture in
            let client = try fixture.client()
            defer { client.close() }
            // The server sees this process; ask the other way round on a pair we own.
            var fds: [Int32] = [0, 0]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
            defer { close(fds[0]); close(fds[1]) }
            let peer = try ControlPeer.of(fds[0])
            #expect(peer.pid == getpid())
            #expect(peer.uid == getuid())
            #expect(peer.gid == getgid())
            var groups = [gid_t](repeating: 0, count: 256)
            let count = getgroups(Int32(groups.count), &groups)
            #expect(Set(peer.groups) == Set(groups.prefix(Int(max(count, 0)))))
        }
    }

    @Test func thisProcessIsWhoTheKernelSaysItIs() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let seen = try ControlPeer.of(fds[0])
        let own = ControlPeer.thisProcess()
        #expect(own.pid == seen.pid && own.uid == seen.uid && own.gid == seen.gid)
        #expect(Set(own.groups) == Set(seen.groups))
    }

    // MARK: watch

    @Test func watchSendsEachAppsStatusThenEveryChange() async throws {
        try await withControlServer { fixture in
            let watcher = try fixture.client()
            #expect(try await watcher.send(.watch(apps: [])) == .watching)
            #expect(try await watcher.nextEvent() == .status(fixture.handler.appStatus("nginx")))
            #expect(try await watcher.nextEvent() == .status(fixture.handler.appStatus("api")))

            fixture.handler.emit(.notice(app: "nginx", command: .screenshot, atUnixMs: 5, untilUnixMs: nil))
            #expect(try await watcher.nextEvent() == .notice(app: "nginx", command: .screenshot, atUnixMs: 5, untilUnixMs: nil))

            let operator_ = try fixture.client()
            defer { operator_.close() }
            #expect(try await operator_.send(.dataSaver(true)) == .dataSaver(true))
            #expect(try await watcher.nextEvent() == .dataSaver(true))

            watcher.close()
            try await poll("the server to let the watcher go") { fixture.handler.snapshot.watchersEnded == 1 }
            try await poll("the connection to close") { fixture.server.connectionCount == 1 }
        }
    }

    @Test func aWatcherThatStopsReadingIsDroppedWithoutHoldingAnythingUp() async throws {
        var limits = ControlServerLimits()
        limits.maxPendingWatchBytes = 64 * 1024
        limits.writeTimeout = .seconds(1)
        try await withControlServer(limits: limits) { fixture in
            let watcher = try fixture.client()
            defer { watcher.close() }
            #expect(try await watcher.send(.watch(apps: ["nginx"])) == .watching)
            // It reads nothing more. Far more than a socket buffer and the outbox hold:
            let long = String(repeating: "x", count: 1000)
            for index in 0..<5000 {
                fixture.handler.emit(.ended(app: "nginx", reason: "\(long)\(index)"))
            }
            try await poll("the slow watcher to be dropped") { fixture.handler.snapshot.watchersEnded == 1 }
            let other = try fixture.client()
            defer { other.close() }
            #expect(try await other.send(.version) == .version(ApsioVersion.current))
            try await poll("the slow watcher's connection to close") { fixture.server.connectionCount == 1 }
        }
    }

    @Test func stoppingTheServerEndsEveryWatch() async throws {
        let fixture = try ControlFixture()
        let watcher = try fixture.client()
        defer { watcher.close() }
        #expect(try await watcher.send(.watch(apps: ["api"])) == .watching)
        #expect(try await watcher.nextEvent() == .status(fixture.handler.appStatus("api")))
        await fixture.server.stop()
        #expect(try await watcher.nextEvent() == nil)
        #expect(!FileManager.default.fileExists(atPath: fixture.socketPath))
    }

    // MARK: The socket file

    @Test func theSocketIsOpenToEveryLocalUserAndASecondDaemonIsRefused() async throws {
        try await withControlServer { fixture in
            let mode = try FileManager.default.attributesOfItem(atPath: fixture.socketPath)[.posixPermissions] as? Int
            #expect(mode == 0o666)
            #expect(throws: ControlListenerError.inUse(fixture.socketPath)) {
                _ = try ControlListener.bind(path: fixture.socketPath)
            }
        }
    }

    @Test func aStaleSocketLeftByACrashIsReplaced() throws {
        let directory = try TemporaryDirectory("apsio-control")
        let path = directory.path + "/control.sock"
        // A socket file nobody listens on, as a killed daemon leaves it.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        close(stale)
        let listener = try ControlListener.bind(path: path)
        defer { listener.close() }
        #expect(listener.boundPath == path)
        let client = try ControlClient.connect(path: path)
        client.close()
    }

    @Test func aFileThatIsNotASocketIsNeverRemoved() throws {
        let directory = try TemporaryDirectory("apsio-control")
        let path = directory.path + "/control.sock"
        _ = FileManager.default.createFile(atPath: path, contents: Data("keep".utf8))
        #expect(throws: ControlListenerError.self) { _ = try ControlListener.bind(path: path) }
        #expect(FileManager.default.contents(atPath: path) == Data("keep".utf8))
    }

    @Test func noSocketMeansTheDaemonIsNotRunning() throws {
        let directory = try TemporaryDirectory("apsio-control")
        #expect(throws: ControlClientError.notRunning(path: directory.path + "/control.sock")) {
            _ = try ControlClient.connect(path: directory.path + "/control.sock")
        }
    }

    @Test func onlyTheProcessSystemdNamedTakesAPassedSocket() throws {
        let environment = ["LISTEN_PID": String(getpid() + 1), "LISTEN_FDS": "1"]
        #expect(try ControlListener.inherited(environment: environment) == nil)
        #expect(try ControlListener.inherited(environment: [:]) == nil)
    }
}
