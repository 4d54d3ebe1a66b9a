/// `apsio.storage.app`, `.data` and `.cache` (7.9), in bytes; each `nil` when it cannot be read.
package struct StorageUsage: Sendable, Equatable {
    /// The owning Debian package's `Installed-Size` × 1024, else the main executable's size.
    package var app: Int64?
    /// Disk usage under the unit's `StateDirectory=`.
    package var data: Int64?
    /// Disk usage under the unit's `CacheDirectory=`.
    package var cache: Int64?

    package init(app: Int64? = nil, data: Int64? = nil, cache: Int64? = nil) {
        self.app = app
        self.data = data
        self.cache = cache
    }
}
