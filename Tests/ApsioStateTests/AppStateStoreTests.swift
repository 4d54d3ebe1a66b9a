import ApsioCore
import Foundation
import Testing
import ApsioState
import ApsioTestSupport

@Suite struct AppStateStoreTests {
    let nginx = try! AppName("nginx")
    let cron = try! AppName("cron")

    @Test func anInstallationIdIsMadeOnceARandomUUIDAndKept() throws {
        let dir = try TemporaryDirectory()
        let store = AppStateStore(layout: StateLayout(root: dir.path))
        #expect(try store.existingInstallationID(for: nginx) == nil)
        let id = try store.installationID(for: nginx)
        #expect(InstallationID.isValid(id))
        #expect(id.range(of: #"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"#, options: .regularExpression) != nil)
        #expect(try store.installationID(for: nginx) == id)
        #expect(try AppStateStore(layout: StateLayout(root: dir.path)).existingInstallationID(for: nginx) == id)
        // Never shared across apps.
        #expect(try store.installationID(for: cron) != id)
        // apsioctl (group apsio) can read it.
        #expect(try dir.mode(of: "apps") == 0o750)
        #expect(try dir.mode(of: "apps/nginx") == 0o750)
        #expect(try dir.mode(of: "apps/nginx/installation-id") == 0o640)
    }

    @Test func theVersionAndVariantBitsAreSetWhateverTheRandomBytes() {
        struct Constant: RandomNumberGenerator {
            let value: UInt64
            mutating func next() -> UInt64 { value }
        }
        var ones = Constant(value: .max)
        var zeros = Constant(value: 0)
        #expect(InstallationID.generate(using: &ones) == "ffffffff-ffff-4fff-bfff-ffffffffffff")
        #expect(InstallationID.generate(using: &zeros) == "00000000-0000-4000-8000-000000000000")
    }

    @Test func removingAnAppAndAddingItAgainIsANewInstallWithEverythingOff() throws {
        let dir = try TemporaryDirectory()
        let state = AgentState(root: dir.path)
        let first = try state.apps.installationID(for: nginx)
        _ = try state.apps.installationID(for: cron)
        try state.apps.saveDayBytes(DayBytes(day: 20_454, bytes: 999), for: nginx)
        try state.apps.saveLastPolicy(Array(#"{"refresh_s":300}"#.utf8), for: nginx)
        try state.settings.update {
            $0.setAllowsLive(true, for: nginx)
            $0.setAllowsLive(true, for: cron)
        }
        let queue = try state.openQueue(for: nginx)
        try queue.append([1, 2, 3], at: 0)
        queue.close()

        // The daemon finds nginx's file gone at reload.
        #expect(try state.forgetApps(notIn: [cron]) == [nginx])
        #expect(try state.apps.knownApps() == [cron])
        #expect(try state.apps.existingInstallationID(for: nginx) == nil)
        #expect(try state.apps.dayBytes(for: nginx) == nil)
        #expect(try state.apps.lastPolicy(for: nginx) == nil)
        #expect(try state.settings.load().allowsLive(nginx) == false)
        #expect(try state.settings.load().allowsLive(cron))
        #expect(try state.openQueue(for: nginx).counters.records == 0)

        // Added again: a new id.
        #expect(try state.apps.installationID(for: nginx) != first)
    }

    @Test func aDamagedInstallationIdStartsTheInstallOver() throws {
        let dir = try TemporaryDirectory()
        let store = AppStateStore(layout: StateLayout(root: dir.path))
        let first = try store.installationID(for: nginx)
        try Data("not-a-uuid\n".utf8).write(to: URL(fileURLWithPath: store.layout.installationIDFile(nginx)))
        let second = try store.installationID(for: nginx)
        #expect(second != first)
        #expect(InstallationID.isValid(second))
    }

    @Test func theDaysBytesSurviveARestart() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        #expect(try AppStateStore(layout: layout).dayBytes(for: nginx) == nil)
        var count = DayBytes(day: 20_454, bytes: 0)
        count.add(4096, on: 20_454)
        try AppStateStore(layout: layout).saveDayBytes(count, for: nginx)
        let read = try #require(try AppStateStore(layout: layout).dayBytes(for: nginx))
        #expect(read == count)
        #expect(read.bytes(on: 20_454) == 4096)
        try Data("[]".utf8).write(to: URL(fileURLWithPath: layout.dayBytesFile(nginx)))
        #expect(throws: StateStoreError.self) { try AppStateStore(layout: layout).dayBytes(for: nginx) }
    }

    @Test func theLastGoodPolicyIsKeptByteForByte() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        let body = Array(#"{"refresh_s":120,"kill_switch":false}"#.utf8)
        try AppStateStore(layout: layout).saveLastPolicy(body, for: nginx)
        #expect(try AppStateStore(layout: layout).lastPolicy(for: nginx) == body)
        #expect(try dir.mode(of: "apps/nginx/policy.json") == 0o640)
        try Data(count: AppStateStore.maxPolicyBytes + 1).write(to: URL(fileURLWithPath: layout.policyFile(nginx)))
        #expect(throws: StateStoreError.self) { try AppStateStore(layout: layout).lastPolicy(for: nginx) }
    }

    @Test func knownAppsLeavesOutWhatIsNotAnApp() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        #expect(try AppStateStore(layout: layout).knownApps().isEmpty)
        try layout.makeAppDirectory(nginx)
        try FileManager.default.createDirectory(atPath: layout.appsDirectory + "/bad name", withIntermediateDirectories: true)
        #expect(try AppStateStore(layout: layout).knownApps() == [nginx])
    }
}
