/// What the Resource (2.1, LINUX-PROFILE §2) and `apsio.storage.app` take from a unit's main
/// executable and the Debian package that owns it.
public struct ExecutableFacts: Sendable, Equatable {
    /// The owning package as dpkg knows it.
    public struct Package: Sendable, Equatable {
        /// `Package`, with `:ARCH` for a multi-arch `same` package (`libfoo1:amd64`).
        public var name: String
        public var version: String
        /// `Installed-Size` × 1024: dpkg counts in KiB.
        public var installedBytes: Int64?
        public init(name: String, version: String, installedBytes: Int64?) {
            self.name = name
            self.version = version
            self.installedBytes = installedBytes
        }
    }

    public var path: String
    /// The GNU build-id note, lowercase hex, as `readelf -n`, `debuginfod` and `eu-unstrip` name it.
    public var gnuBuildID: String?
    public var package: Package?
    /// The executable's size in bytes.
    public var fileSize: Int64?

    public init(path: String, gnuBuildID: String? = nil, package: Package? = nil, fileSize: Int64? = nil) {
        self.path = path
        self.gnuBuildID = gnuBuildID
        self.package = package
        self.fileSize = fileSize
    }

    /// `service.version` when the app file sets no `Version=`: the package's version, else `unknown`.
    public var serviceVersion: String { package?.version ?? "unknown" }

    /// `app.build_id`: the build-id, which matches the symbol files, else `NAME@VERSION`.
    public func appBuildID(serviceName: String, serviceVersion: String) -> String {
        gnuBuildID ?? "\(serviceName)@\(serviceVersion)"
    }

    /// `apsio.storage.app`: the package's installed size, else the executable's own size.
    public var appStorageBytes: Int64? { package?.installedBytes ?? fileSize }
}
