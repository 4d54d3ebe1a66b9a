#if canImport(Glibc)
internal import Glibc
#endif
package import ApsioCore
import ApsioJSON
internal import ApsioPOSIX

/// The daemon's own state for each app under `apps/NAME/`: the installation id, the day's live
/// bytes and the last good policy. Files are mode 0640 in directories of mode 0750, so members of
/// the group `apsio` can read them (`apsioctl apps` shows the installation id) and only the
/// daemon writes them. None of them holds a secret: a policy carries only the hashes of tester
/// proofs, and proofs, device tokens and app keys are never written by any store.
package struct AppStateStore: Sendable {
    package let layout: StateLayout

    package init(layout: StateLayout) {
        self.layout = layout
    }

    // MARK: Installation id

    /// The app's installation id, made and kept the first time it is asked for. A file that does
    /// not hold one we wrote is replaced by a new id: the install starts over, as a reinstalled
    /// app would.
    package func installationID(for app: AppName) throws(StateStoreError) -> String {
        if let existing = try existingInstallationID(for: app) { return existing }
        let made = InstallationID.generate()
        try write(Array((made + "\n").utf8), to: layout.installationIDFile(app), for: app)
        return made
    }

    /// The id if one was made, without making one: what `apsioctl` reads.
    package func existingInstallationID(for app: AppName) throws(StateStoreError) -> String? {
        guard let bytes = try read(layout.installationIDFile(app), maxBytes: 128) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        let id = text.hasSuffix("\n") ? String(text.dropLast()) : text
        return InstallationID.isValid(id) ? id : nil
    }

    // MARK: The day's live bytes (16.3)

    package func dayBytes(for app: AppName) throws(StateStoreError) -> DayBytes? {
        let path = layout.dayBytesFile(app)
        guard let bytes = try read(path, maxBytes: 4096) else { return nil }
        // `{"bytes":N,"day":D}`, both whole numbers, read strictly.
        guard case .object(let members)? = try? JSONParser(maxBytes: 4096, maxDepth: 2).parse(bytes),
            let count = members["bytes"]?.numberValue.flatMap({ Int(exactly: $0) }),
            let day = members["day"]?.numberValue.flatMap({ Int64(exactly: $0) })
        else { throw .unreadable(path: path, reason: "not a day's byte count") }
        return DayBytes(day: day, bytes: count)
    }

    /// Written as each live body is counted; `durable` syncs it too (a power cut can lose what was
    /// counted since the last durable write, a crash of apsiod nothing).
    package func saveDayBytes(_ dayBytes: DayBytes, for app: AppName, durable: Bool = true) throws(StateStoreError) {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("bytes"); writer.int(Int64(dayBytes.bytes))
        writer.key("day"); writer.int(dayBytes.day)
        writer.endObject()
        try write(writer.bytes + [0x0A], to: layout.dayBytesFile(app), for: app, durable: durable)
    }

    // MARK: The last good policy (LINUX-PROFILE §12)

    /// The body of the last policy that parsed, as the backend sent it.
    package func lastPolicy(for app: AppName) throws(StateStoreError) -> [UInt8]? {
        try read(layout.policyFile(app), maxBytes: Self.maxPolicyBytes)
    }

    package func saveLastPolicy(_ body: [UInt8], for app: AppName) throws(StateStoreError) {
        try write(body, to: layout.policyFile(app), for: app)
    }

    /// The `ETag` that came with the stored policy, nil when none was kept or the file is not one
    /// we wrote (the next request then simply asks for the whole body).
    package func lastPolicyETag(for app: AppName) throws(StateStoreError) -> PolicyETag? {
        guard let bytes = try read(layout.policyETagFile(app), maxBytes: PolicyETag.maxBytes + 1) else { return nil }
        guard bytes.last == 0x0A else { return nil }
        return PolicyETag(String(decoding: bytes.dropLast(), as: UTF8.self))
    }

    /// Keeps `etag` beside the stored policy, or removes the file for nil. The caller removes the
    /// old one before replacing the body and writes the new one after: a crash in between leaves
    /// no `ETag`, never one that names a body other than the stored one.
    package func saveLastPolicyETag(_ etag: PolicyETag?, for app: AppName) throws(StateStoreError) {
        guard let etag else {
            let path = layout.policyETagFile(app)
            try StateStoreError.io { () throws(SystemError) in try FileSystem.removeFile(path) }
            return
        }
        try write(Array((etag.value + "\n").utf8), to: layout.policyETagFile(app), for: app)
    }

    /// A policy is a few hundred bytes and its tester list is bounded; a larger file is not ours.
    package static let maxPolicyBytes = 1 << 20

    // MARK: Apps

    /// The apps that have state here, whether or not they are still configured.
    package func knownApps() throws(StateStoreError) -> [AppName] {
        let path = layout.appsDirectory
        let names = try StateStoreError.io { () throws(SystemError) in try FileSystem.names(in: path) } ?? []
        return names.compactMap { try? AppName($0) }
    }

    /// Removes everything kept for the app (installation id, day bytes, policy, journal cursor,
    /// record queue), so that an app added again is a new install (2.3).
    package func removeState(of app: AppName) throws(StateStoreError) {
        let path = layout.appDirectory(app)
        try StateStoreError.io { () throws(SystemError) in try FileSystem.removeTree(path) }
    }

    // MARK: Files

    private func read(_ path: String, maxBytes: Int) throws(StateStoreError) -> [UInt8]? {
        do {
            return try AtomicFile.read(path, maxBytes: maxBytes)
        } catch where error.errno == EFBIG {
            throw .unreadable(path: path, reason: "larger than \(maxBytes) bytes")
        } catch {
            throw .system(error)
        }
    }

    private func write(_ bytes: [UInt8], to path: String, for app: AppName, durable: Bool = true) throws(StateStoreError) {
        let layout = layout
        try StateStoreError.io { () throws(SystemError) in
            try layout.makeAppDirectory(app)
            try AtomicFile.write(bytes, to: path, mode: 0o640, durable: durable)
        }
    }
}
