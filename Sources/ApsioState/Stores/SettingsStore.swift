#if canImport(Glibc)
internal import Glibc
#endif
import ApsioCore
import ApsioJSON
internal import ApsioPOSIX

/// `settings.json` under the state directory, shared by the daemon and `apsioctl`, which may write
/// it while the daemon is not running.
///
/// Reads need no lock (the file is replaced by rename, never rewritten in place). Every change is
/// a read-modify-write under an flock on `settings.lock`, so two writers (an `apsioctl` and the
/// daemon forgetting a removed app) never lose each other's change. Both files are mode 0660 and
/// take the state directory's group (see `FileOwner`).
package struct SettingsStore: Sendable {
    package let layout: StateLayout
    /// How long a change waits for another writer before giving up with `.locked`.
    package var lockTimeout: Duration

    package init(layout: StateLayout, lockTimeout: Duration = .seconds(5)) {
        self.layout = layout
        self.lockTimeout = lockTimeout
    }

    /// The settings, or the defaults when none were ever written.
    package func load() throws(StateStoreError) -> OperatorSettings {
        let path = layout.settingsFile
        guard let bytes = try StateStoreError.io({ () throws(SystemError) in try AtomicFile.read(path, maxBytes: 1 << 20) })
        else { return OperatorSettings() }
        do {
            return try OperatorSettings(json: JSONParser(maxBytes: 1 << 20, maxDepth: 8).parse(bytes))
        } catch {
            throw .unreadable(path: path, reason: "not the settings JSON: \(error)")
        }
    }

    /// Applies `change` to the current settings and writes the result; returns it.
    @discardableResult
    package func update(_ change: (inout OperatorSettings) -> Void) throws(StateStoreError) -> OperatorSettings {
        let layout = layout
        let owner = try StateStoreError.io { () throws(SystemError) in try FileOwner.matching(directory: layout.root) }
        guard let lock = try StateStoreError.io({ () throws(SystemError) in
            try FileLock.acquire(layout.settingsLockFile, mode: 0o660, owner: owner, timeout: lockTimeout)
        }) else { throw .locked(path: layout.settingsLockFile) }
        defer { lock.release() }
        var settings = try load()
        change(&settings)
        let bytes = settings.json.prettyPrinted
        try StateStoreError.io { () throws(SystemError) in
            try AtomicFile.write(bytes, to: layout.settingsFile, mode: 0o660, owner: owner)
        }
        return settings
    }
}
