import ApsioControl
import ApsioCore
import Synchronization
import Testing
@testable import ApsioTestSupport

/// apsioctl against a daemon with no place for it (docs/control.md, "Connections"): it asks again,
/// for a bounded time, and an `allow-live off` it could not deliver says so.
@Suite struct BusyDaemonTests {
    /// One place, taken by a `reload` the fake daemon holds in progress: nothing can take it.
    static var onePlace: ControlServerLimits {
        var limits = ControlServerLimits()
        limits.maxConnections = 1
        return limits
    }

    @Test func aBusyDaemonIsAskedAgainUntilThereIsAPlace() async throws {
        try await withControlServer(limits: Self.onePlace) { fixture in
            fixture.handler.reloadGate.close()
            // Whatever the test finds, the server can stop: nothing is held up after it.
            defer { fixture.handler.reloadGate.open() }
            let holder = try fixture.client()
            defer { holder.close() }
            let reload = Task { try await holder.send(.reload) }
            try await poll("the reload in progress", seconds: 30) { fixture.handler.reloadGate.waitingCount == 1 }

            let waits = Mutex<[Duration]>([])
            var clock = FixedCtlClock()
            clock.onSleep = { wait in
                waits.withLock { $0.append(wait) }
                // The place frees up while apsioctl waits.
                fixture.handler.reloadGate.open()
                _ = try? await reload.value
                holder.close()
            }
            let off = await CtlRun.run(["--runtime-dir", fixture.directory.path, "allow-live", "off", "nginx"], clock: clock)
            #expect(off.status == 0, "\(off.stderr)")
            #expect(off.stdout == "Live inspection off for nginx\n")
            #expect(fixture.handler.snapshot.allowLive == ["nginx": false])
            #expect(!waits.withLock { $0 }.isEmpty, "it was told busy, and asked again")
        }
    }

    @Test func aDaemonThatStaysBusyIsAFailureThatSaysLiveIsStillOn() async throws {
        try await withControlServer(limits: Self.onePlace) { fixture in
            fixture.handler.reloadGate.close()
            defer { fixture.handler.reloadGate.open() }
            let holder = try fixture.client()
            defer { holder.close() }
            _ = Task { try await holder.send(.reload) }
            try await poll("the reload in progress", seconds: 30) { fixture.handler.reloadGate.waitingCount == 1 }

            let waits = Mutex<[Duration]>([])
            var clock = FixedCtlClock()
            clock.onSleep = { wait in waits.withLock { $0.append(wait) } }
            let off = await CtlRun.run(["--runtime-dir", fixture.directory.path, "--json", "allow-live", "off", "nginx"], clock: clock)
            #expect(off.status == 1)
            #expect(off.json?["error"] == .string("busy"))
            #expect(off.stderr.contains("live inspection was not turned off"), "\(off.stderr)")
            #expect(off.stderr.split(separator: "\n").count == 1)
            #expect(fixture.handler.snapshot.allowLive.isEmpty)
            // Asked again, and for no longer than it says.
            let waited = waits.withLock { $0 }
            #expect(waited.count > 1)
            #expect(waited.reduce(Duration.zero, +) == .seconds(15))
        }
    }
}
