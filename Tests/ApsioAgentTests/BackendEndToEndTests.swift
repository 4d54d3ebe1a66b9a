import ApsioAgent
import ApsioBackend
import ApsioCore
import ApsioJSON
import ApsioNet
import Foundation
import Synchronization
@testable import ApsioTestSupport
import Testing

/// The device and the development backend over loopback HTTP: a person signs in and watches, the
/// unit's journal lines reach that person's stream, and a screenshot comes back.
@Suite(.serialized) struct BackendEndToEndTests {
    @Test func aPersonWatchesTheUnitLiveAndTakesAScreenshot() async throws {
        let accounts = AccountsFile(accounts: [
            Account(user: "ann", role: .admin, password: PasswordHash(password: "ann-password", iterations: 1000))
        ])
        // The backend publishes its own origin in the policy: its port is chosen first.
        let port = try LoopbackPort.free()
        let started = Mutex<BackendServer?>(nil)
        let viewer = try ViewerAPI(port: port)
        @Sendable func api(_ method: String, _ path: String, _ bearer: String?, _ body: JSONValue? = nil) async throws -> (Int, JSONValue) {
            try await viewer.call(method, path, bearer, body)
        }

        do {
            try await LiveIntegrationTests.withHost(backend: { install in
                let sha = OpenSSLSHA256()
                let proof = TesterProof(entryID: "qa-box-7", installationID: install, hashing: sha)
                let backend = try BackendServer(
                    configuration: BackendConfiguration(
                        listenHost: "127.0.0.1", listenPort: port,
                        hub: HubConfiguration(
                            origin: LiveOrigin("http://127.0.0.1:\(port)")!,
                            apps: [HubApp(name: "demo", appKey: LiveIntegrationTests.appKey, testers: [
                                TesterEntry(id: "qa-box-7", match: proof.match(hashing: sha), expiresAt: 4_000_000_000)
                            ])]),
                        development: true),
                    accounts: accounts)
                _ = try await backend.start()
                started.withLock { $0 = backend }
                return "http://127.0.0.1:\(port)"
            }) { host in
                let install = host.install
                try await SystemdMock.update(host.bus, LiveIntegrationTests.unit, [["ActiveState", "s", "active"]])
                try await host.allowLive(true)

                // The device says hello; a person signs in and watches it.
                let login = try await api("POST", "/api/login", nil, .object(["user": .string("ann"), "password": .string("ann-password")]))
                let ann = try #require(login.1["token"]?.stringValue)
                try await host.until("the device present") {
                    let devices = try? await api("GET", "/api/devices", ann)
                    return devices?.1["devices"]?.arrayValue?.contains { $0["install"]?.stringValue == install } ?? false
                }
                #expect(try await api("POST", "/api/devices/\(install)/watch", ann).0 == 200)

                // The next hello finds a viewer and starts the session.
                host.clock.advance(by: .seconds(30))
                try await host.until("the session started") { (try? await host.live.isInSession) ?? false }

                // The unit writes; the person's stream shows the lines.
                try await host.journal.write([host.journal.entry(unit: LiveIntegrationTests.unit, message: "order 1234 shipped")])
                // The stream hands each event once: keep all of them.
                let seen = Mutex<[JSONValue]>([])
                try await host.until("the line in the stream") {
                    host.clock.advance(by: .seconds(1))
                    guard let stream = try? await api("GET", "/api/devices/\(install)/stream", ann) else { return false }
                    let events = seen.withLock { $0 += stream.1["events"]?.arrayValue ?? []; return $0 }
                    return events.contains { event in
                        event["frames"]?["lines"]?.arrayValue?.contains { $0["body"] == .string("order 1234 shipped") }
                            ?? event["lines"]?.arrayValue?.contains { $0["body"] == .string("order 1234 shipped") } ?? false
                    }
                }

                // A screenshot: the device runs it, shows a notice, and the result reaches the stream.
                let command = try await api("POST", "/api/devices/\(install)/commands", ann, .object(["name": .string("screenshot")]))
                #expect((200..<300).contains(command.0))
                try await host.until("the screenshot's result in the stream") {
                    host.clock.advance(by: .milliseconds(300))
                    guard let stream = try? await api("GET", "/api/devices/\(install)/stream", ann) else { return false }
                    let events = seen.withLock { $0 += stream.1["events"]?.arrayValue ?? []; return $0 }
                    return events.contains { $0["type"] == .string("result") }
                }
                try await host.until("the notice on the machine") { host.notices.contains(.screenshot) }
            }
        } catch {
            await started.withLock { $0 }?.stop()
            throw error
        }
        await started.withLock { $0 }?.stop()
    }
}
