import Foundation
import Testing
import ApsioCore
import ApsioState
import ApsioTestSupport

@Suite struct SettingsStoreTests {
    let nginx = try! AppName("nginx")
    let cron = try! AppName("cron")

    @Test func everythingIsOffUntilTheOperatorTurnsItOn() throws {
        let dir = try TemporaryDirectory()
        let settings = try SettingsStore(layout: StateLayout(root: dir.path)).load()
        #expect(settings.allowsLive(nginx) == false)
        #expect(settings.consentOverride(nginx) == nil)
        #expect(settings.dataSaver == false)
    }

    @Test func choicesAreKeptAndReadBackByAnotherStore() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        try SettingsStore(layout: layout).update {
            $0.setAllowsLive(true, for: nginx)
            $0.setConsentOverride(.denied, for: cron)
            $0.dataSaver = true
        }
        let read = try SettingsStore(layout: layout).load()
        #expect(read.allowsLive(nginx))
        #expect(read.allowsLive(cron) == false)
        #expect(read.consentOverride(cron) == .denied)
        #expect(read.consentOverride(nginx) == nil)
        #expect(read.dataSaver)
        // Shared with apsioctl through the group; the lock file too.
        #expect(try dir.mode(of: "settings.json") == 0o660)
        #expect(try dir.mode(of: "settings.lock") == 0o660)

        try SettingsStore(layout: layout).update {
            $0.setAllowsLive(false, for: nginx)
            $0.setConsentOverride(nil, for: cron)
        }
        let cleared = try SettingsStore(layout: layout).load()
        #expect(cleared.appsWithSettings.isEmpty)
    }

    @Test func theFileIsPlainJSONAnOperatorCanRead() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        try SettingsStore(layout: layout).update { $0.setAllowsLive(true, for: nginx) }
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: layout.settingsFile)))
        let json = try #require(object as? [String: Any])
        #expect(json["version"] as? Int == 1)
        #expect(json["data_saver"] as? Bool == false)
        #expect((json["apps"] as? [String: [String: Any]])?["nginx"]?["allow_live"] as? Bool == true)
    }

    /// One member a line, as an operator opening the file expects; and a file written by an
    /// earlier release (Foundation's pretty form, `"key" : value`) reads the same.
    @Test func theFileIsOneMemberALineAndAnEarlierReleasesReadsTheSame() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        try SettingsStore(layout: layout).update {
            $0.setAllowsLive(true, for: nginx)
            $0.setConsentOverride(.granted, for: cron)
        }
        let written = try String(contentsOfFile: layout.settingsFile, encoding: .utf8)
        #expect(written == """
            {
              "apps": {
                "cron": {
                  "allow_live": false,
                  "consent": "granted"
                },
                "nginx": {
                  "allow_live": true
                }
              },
              "data_saver": false,
              "version": 1
            }

            """)
        let earlier = "{\n  \"apps\" : {\n    \"nginx\" : {\n      \"allow_live\" : true\n    }\n  },\n  \"data_saver\" : true,\n  \"version\" : 1\n}\n"
        try Data(earlier.utf8).write(to: URL(fileURLWithPath: layout.settingsFile))
        let read = try SettingsStore(layout: layout).load()
        #expect(read.allowsLive(nginx) && read.dataSaver && read.consentOverride(cron) == nil)
    }

    /// Read as strictly as any body a peer sends: a field written twice, a value of the wrong
    /// kind or a consent that is neither word is not guessed at, and the file is left as it is.
    @Test(arguments: [
        #"{"version":1,"apps":{"nginx":{"allow_live":false,"allow_live":true}}}"#,
        #"{"version":1,"data_saver":"yes"}"#,
        #"{"version":1,"apps":{"nginx":{"consent":"maybe"}}}"#,
        #"{"version":1,"apps":{"nginx":true}}"#,
        #"{"version":2}"#,
        #"[1]"#,
    ])
    func whatCouldBeReadTwoWaysIsRefused(text: String) throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        try Data(text.utf8).write(to: URL(fileURLWithPath: layout.settingsFile))
        let store = SettingsStore(layout: layout)
        #expect(throws: StateStoreError.self) { try store.load() }
        #expect(throws: StateStoreError.self) { try store.update { $0.dataSaver = true } }
        #expect(try String(contentsOfFile: layout.settingsFile, encoding: .utf8) == text)
    }

    @Test func unknownFieldsAndBadNamesInTheFileAreIgnored() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        let text = #"{"version":1,"future":3,"apps":{"../etc":{"allow_live":true},"nginx":{"allow_live":true,"x":1}}}"#
        try Data(text.utf8).write(to: URL(fileURLWithPath: layout.settingsFile))
        let read = try SettingsStore(layout: layout).load()
        #expect(read.allowsLive(nginx))
        #expect(read.appsWithSettings == [nginx])
    }

    @Test func aDamagedFileIsReportedAndNotOverwritten() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: layout.settingsFile))
        let store = SettingsStore(layout: layout)
        #expect(throws: StateStoreError.self) { try store.load() }
        #expect(throws: StateStoreError.self) { try store.update { $0.dataSaver = true } }
        #expect(try String(contentsOfFile: layout.settingsFile, encoding: .utf8) == "{not json")
    }

    @Test func writersAtTheSameTimeLoseNoChange() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        let apps = try (0..<24).map { try AppName("app-\($0)") }
        let failures = LockedCounter()
        // Each writer is a separate open of the lock file, which flock treats as apsioctl and the
        // daemon in two processes.
        DispatchQueue.concurrentPerform(iterations: apps.count) { index in
            do {
                try SettingsStore(layout: layout, lockTimeout: .seconds(60)).update {
                    $0.setAllowsLive(true, for: apps[index])
                }
            } catch {
                failures.add()
            }
        }
        #expect(failures.value == 0)
        let read = try SettingsStore(layout: layout).load()
        #expect(apps.allSatisfy { read.allowsLive($0) })
    }

    @Test func aWriterThatHoldsTheLockTooLongIsReported() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        let fd = open(layout.settingsLockFile, O_RDONLY | O_CREAT | O_CLOEXEC, 0o660)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)
        #expect(throws: StateStoreError.locked(path: layout.settingsLockFile)) {
            try SettingsStore(layout: layout, lockTimeout: .zero).update { $0.dataSaver = true }
        }
        #expect(try SettingsStore(layout: layout).load().dataSaver == false)
        flock(fd, LOCK_UN)
        try SettingsStore(layout: layout, lockTimeout: .zero).update { $0.dataSaver = true }
        #expect(try SettingsStore(layout: layout).load().dataSaver)
    }

    /// apsioctl run as root must not leave a root-owned file the daemon (user apsio) cannot read.
    @Test(.enabled(if: geteuid() == 0, "only root can give a file away"))
    func whatRootWritesBelongsToTheStateDirectorysOwner() throws {
        let dir = try TemporaryDirectory()
        let daemonUser: uid_t = 64_123, daemonGroup: gid_t = 64_124
        #expect(chown(dir.path, daemonUser, daemonGroup) == 0)
        let layout = StateLayout(root: dir.path)
        try SettingsStore(layout: layout).update { $0.setAllowsLive(true, for: nginx) }
        for file in ["settings.json", "settings.lock"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: dir.path + "/" + file)
            #expect(attributes[.ownerAccountID] as? Int == Int(daemonUser), "\(file)")
            #expect(attributes[.groupOwnerAccountID] as? Int == Int(daemonGroup), "\(file)")
        }
    }

    @Test func appNamesCannotLeaveTheStateDirectory() {
        for bad in ["", ".", "..", "../x", "a/b", "nginx.conf\n", "ünï", String(repeating: "a", count: 256), "a b"] {
            #expect(throws: AppNameError(name: bad)) { try AppName(bad) }
        }
        for good in ["nginx", "com.example.shop", "a_b-c.1", "..x", String(repeating: "a", count: 255)] {
            #expect(AppName.isValid(good), "\(good)")
        }
    }
}

/// Counts from many threads at once.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
