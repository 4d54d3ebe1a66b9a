/// `apsio.storage.app`, `.data` and `.cache` (7.9), in bytes; each `nil` when it cannot be read.
public struct StorageUsage: Sendable, Equatable {
    /// The owning Debian package's `Installed-Size` × 1024, else the main executable's size.
    public var app: Int64?
    /// Disk usage under the unit's `StateDirectory=`.
    public var data: Int64?
    /// Disk usage under the unit's `CacheDirectory=`.
    public var cache: Int64?

    public init(app: Int64? = nil, data: Int64? = nil, cache: Int64? = nil) {
        self.app = app
        self.data = data
        self.cache = cache
    }
}
