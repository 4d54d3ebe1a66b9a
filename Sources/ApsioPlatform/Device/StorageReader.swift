package import ApsioCore
internal import ApsioPOSIX

/// `apsio.storage.app`, `.data` and `.cache` (7.9). The daemon runs unprivileged and never asks for
/// more rights for this: a directory it may not read in full gives no number, not a smaller one.
package struct StorageReader: Sendable, Equatable {
    package var limits: ReadLimits
    /// Where relative `StateDirectory=` and `CacheDirectory=` names live (system units).
    package var stateBase: String
    package var cacheBase: String

    package init(limits: ReadLimits = .standard, stateBase: String = "/var/lib", cacheBase: String = "/var/cache") {
        self.limits = limits
        self.stateBase = stateBase
        self.cacheBase = cacheBase
    }

    /// The unit's storage: `stateDirectories` and `cacheDirectories` as systemd's `StateDirectory`
    /// and `CacheDirectory` properties list them (relative to `/var/lib` and `/var/cache`).
    package func usage(
        executable: ExecutableFacts?, stateDirectories: [String], cacheDirectories: [String]
    ) -> StorageUsage {
        StorageUsage(
            app: executable?.appStorageBytes,
            data: diskUsage(stateDirectories.map { join(stateBase, $0) }),
            cache: diskUsage(cacheDirectories.map { join(cacheBase, $0) }))
    }

    /// The bytes the directories take on disk, as `du -s -x -B1` counts them: allocated blocks of
    /// every entry, the directories' own included; a file linked twice counted once; symbolic links
    /// not followed below the top; other file systems mounted inside not entered. `nil` for no
    /// directory, or when any part cannot be read or passes the entry or depth limits.
    package func diskUsage(_ directories: [String]) -> Int64? {
        guard !directories.isEmpty else { return nil }
        var walk = Walk(limits: limits)
        for directory in directories {
            // The top is followed when it is a link, as `du` follows the paths it is given.
            guard let stream = try? DirectoryStream.open(directory), let info = try? stream.status() else { return nil }
            walk.count(info)
            guard walk.descend(stream, device: info.device, depth: 1) else { return nil }
        }
        return walk.bytes
    }

    private struct Walk {
        let limits: ReadLimits
        var bytes: Int64 = 0
        var entries = 0
        var linked: Set<[UInt64]> = []

        init(limits: ReadLimits) { self.limits = limits }

        mutating func count(_ info: FileStatus) {
            if info.kind != .directory && info.linkCount > 1 {
                guard linked.insert([info.device, info.inode]).inserted else { return }
            }
            bytes += info.blocks * 512
        }

        /// Counts what is below the open directory, which is closed with it. False when the walk
        /// cannot give a true number.
        mutating func descend(_ directory: DirectoryStream, device: UInt64, depth: Int) -> Bool {
            guard depth <= limits.maxStorageDepth else { return false }
            while true {
                let next: DirectoryStream.Entry?
                do { next = try directory.next() } catch { return false }
                guard let entry = next else { return true }
                entries += 1
                if entries > limits.maxStorageEntries { return false }
                let found: FileStatus?
                do { found = try directory.status(of: entry.name) } catch { return false }
                guard let info = found else { continue }  // removed while we walked
                guard info.device == device else { continue }
                count(info)
                guard info.kind == .directory else { continue }
                let opened: DirectoryStream?
                do { opened = try directory.opening(entry.name) } catch { return false }
                guard let child = opened else { continue }
                guard descend(child, device: device, depth: depth + 1) else { return false }
            }
        }
    }
}
