import ApsioControl
import Foundation

/// A control server on a real unix socket in a directory of its own, with a fake handler behind it.
final class ControlFixture: Sendable {
    let directory: TemporaryDirectory
    let handler: FakeControlHandler
    let server: ControlServer
    var socketPath: String { ControlListener.path(runtimeDirectory: directory.path) }

    init(limits: ControlServerLimits = .default, access: ControlAccess = ControlAccess(adminGroup: "apsio-no-such-group"))
        throws
    {
        directory = try TemporaryDirectory("apsio-control")
        // Other users must reach the socket: the test drops a client to nobody.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        handler = FakeControlHandler()
        let listener = try ControlListener.bind(path: ControlListener.path(runtimeDirectory: directory.path))
        server = ControlServer(listener: listener, handler: handler, access: access, limits: limits)
        server.start()
    }

    func client() throws -> ControlClient {
        try ControlClient.connect(path: socketPath, answerTimeout: .seconds(30))
    }
}

/// Runs `body` against a fresh server, stopped afterwards whether the body failed or not.
func withControlServer(
    limits: ControlServerLimits = .default, access: ControlAccess = ControlAccess(adminGroup: "apsio-no-such-group"),
    _ body: (ControlFixture) async throws -> Void
) async throws {
    let fixture = try ControlFixture(limits: limits, access: access)
    do {
        try await body(fixture)
    } catch {
        await fixture.server.stop()
        throw error
    }
    await fixture.server.stop()
}
