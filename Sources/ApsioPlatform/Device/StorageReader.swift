public import ApsioCore
internal import Glibc

/// `apsio.storage.app`, `.data` and `.cache` (7.9). The daemon runs unprivileged and never asks for
/// more rights for this: a directory it may not read in full gives no number, not a smaller one.
public struct StorageReader: Sendable, Equatable {
    public var limits: ReadLimits
    /// Where relative `StateDirectory=` and `CacheDirectory=` names live (system units).
    public var stateBase: String
    public var cacheBase: String

    public init(limits: ReadLimits = .standard, stateBase: String = "/var/lib", cacheBase: String = "/var/cache") {
        self.limits = limits
        self.stateBase = stateBase
        self.cacheBase = cacheBase
    }

    /// The unit's storage: `stateDirectories` and `cacheDirectories` as systemd's `StateDirectory`
    /// and `CacheDirectory` properties list them (relative to `/var/lib` and `/var/cache`).
    public func usage(
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
    public func diskUsage(_ directories: [String]) -> Int64? {
        guard !directories.isEmpty else { return nil }
        var walk = Walk(limits: limits)
        for directory in directories {
            guard let fd = try? SmallFile.open(directory, flags: O_RDONLY | O_DIRECTORY) else { return nil }
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                _ = close(fd)
                return nil
            }
            walk.count(info)
            guard walk.descend(fd, device: info.st_dev, depth: 1) else { return nil }
        }
        return walk.bytes
    }

    private struct Walk {
        let limits: ReadLimits
        var bytes: Int64 = 0
        var entries = 0
        var linked: Set<[UInt64]> = []

        init(limits: ReadLimits) { self.limits = limits }

        mutating func count(_ info: stat) {
            if (info.st_mode & S_IFMT) != S_IFDIR && info.st_nlink > 1 {
                guard linked.insert([UInt64(info.st_dev), UInt64(info.st_ino)]).inserted else { return }
            }
            bytes += Int64(info.st_blocks) * 512
        }

        /// Counts what is below the directory open at `fd`, and closes it. False when the walk
        /// cannot give a true number.
        mutating func descend(_ fd: Int32, device: dev_t, depth: Int) -> Bool {
            guard depth <= limits.maxStorageDepth, let directory = fdopendir(fd) else {
                _ = close(fd)
                return false
            }
            defer { closedir(directory) }
            let directoryFD = dirfd(directory)
            while true {
                errno = 0
                guard let entry = readdir(directory) else { return errno == 0 }
                let name = SmallFile.entryName(entry)
                if name == "." || name == ".." { continue }
                entries += 1
                if entries > limits.maxStorageEntries { return false }
                var info = stat()
                guard fstatat(directoryFD, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                    if errno == ENOENT { continue }  // removed while we walked
                    return false
                }
                guard info.st_dev == device else { continue }
                count(info)
                guard (info.st_mode & S_IFMT) == S_IFDIR else { continue }
                let child = openat(directoryFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if child < 0 {
                    if errno == ENOENT { continue }
                    return false
                }
                guard descend(child, device: device, depth: depth + 1) else { return false }
            }
        }
    }
}
